// Command quickstart is a small JSON API served by Plinth: routes with path
// parameters, a group with its own middleware and 404, errors as RFC 9457
// problem JSON, notes kept in a database (SQLite in ./data.db by default,
// PostgreSQL when PLINTH_DATABASE_URL or DATABASE_URL is a postgres:// URL),
// and Plinth's production server loop (timeouts, limits, health probes with
// the database's readiness, graceful drain on SIGINT/SIGTERM, the database
// closed after the drain), Prometheus metrics on 127.0.0.1:9090/metrics (or
// $PLINTH_METRICS_ADDR; not on the public port), and OpenTelemetry traces over
// OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
//
//	go run ./examples/quickstart           # serves on :8080, or on $PLINTH_ADDR
//	go run ./examples/quickstart migrate   # applies the migrations and exits
//	curl localhost:8080/api/notes/1
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/plinth-go/plinth/data"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "quickstart stopped: %v\n", err) // each line of a multi-line error on its own line
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	db, err := data.Open(ctx, data.Config{})
	if err != nil {
		return err
	}
	applied, err := migrate(ctx, db)
	if err != nil {
		db.Close()
		return err
	}
	for _, m := range applied {
		slog.Info("migration applied", "name", m.Name)
	}
	if len(args) > 0 {
		defer db.Close()
		if args[0] == "migrate" {
			fmt.Printf("%s: %d migration(s) applied\n", data.Redact(db.Config().URL), len(applied))
			return nil
		}
		return fmt.Errorf("unknown argument %q (want none, or migrate)", args[0])
	}
	app, _, err := newApp(db)
	if err != nil {
		db.Close()
		return err
	}
	return app.Run() // closes db after the drain (db.Attach), flushes the traces
}
