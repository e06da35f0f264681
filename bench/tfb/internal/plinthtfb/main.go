package plinthtfb

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
	"github.com/plinth-go/plinth/data"
)

// PoolModeVar names the environment variable that selects how the server
// reaches PostgreSQL: "pool" (the default: data.Open's pgx pool, sized and
// configured by the PLINTH_DATABASE_* variables) or "per-worker" (GOMAXPROCS
// worker goroutines, each owning one connection, fed over a channel).
const PoolModeVar = "TFB_POOL_MODE"

// Open opens the database from the environment (data.Open: DATABASE_URL or
// PLINTH_DATABASE_URL, which must be PostgreSQL), primes the cache and
// builds the Store of the pool mode PoolModeVar selects. close releases it
// all.
func Open(ctx context.Context) (s tfb.Setup, close func(), err error) {
	url := strings.TrimSpace(os.Getenv("PLINTH_DATABASE_URL"))
	if url == "" {
		url = strings.TrimSpace(os.Getenv("DATABASE_URL"))
	}
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return s, nil, fmt.Errorf("DATABASE_URL=%q: the TechEmpower benchmark needs PostgreSQL, e.g. postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable", data.Redact(url))
	}
	db, err := data.Open(ctx, data.Config{})
	if err != nil {
		return s, nil, err
	}
	if db.Dialect() != data.Postgres {
		db.Close()
		return s, nil, fmt.Errorf("the TechEmpower benchmark needs PostgreSQL, got %s", db.Dialect())
	}
	cache, err := tfb.LoadCache(ctx, db.Pgx())
	if err != nil {
		db.Close()
		return s, nil, err
	}
	switch mode := os.Getenv(PoolModeVar); mode {
	case "", "pool":
		return tfb.Setup{Store: tfb.PoolStore{Pool: db.Pgx()}, Cache: cache}, func() { db.Close() }, nil
	case "per-worker":
		ws, err := tfb.NewWorkerStore(ctx, db.Pgx().Config().ConnConfig, runtime.GOMAXPROCS(0))
		if err != nil {
			db.Close()
			return s, nil, err
		}
		return tfb.Setup{Store: ws, Cache: cache}, func() { ws.Close(); db.Close() }, nil
	default:
		db.Close()
		return s, nil, fmt.Errorf("%s=%q: want pool or per-worker", PoolModeVar, mode)
	}
}

// Main opens the database, builds the App and runs it (PLINTH_ADDR, default
// :8080) until SIGINT or SIGTERM; TFB_PPROF (see tfb.PprofVar) adds pprof
// on its own address.
func Main() error {
	tfb.StartPprof()
	s, closeDB, err := Open(context.Background())
	if err != nil {
		return err
	}
	app := New(s)
	app.OnStop(func(context.Context) error { closeDB(); return nil })
	return app.Run()
}
