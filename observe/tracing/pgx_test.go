package tracing_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/plinthtest"
)

// TestQueryTracer runs queries through a pgxpool traced by QueryTracer
// inside a traced request, against the PostgreSQL of PLINTH_TEST_POSTGRES.
func TestQueryTracer(t *testing.T) {
	url := plinthtest.PostgresURL(t)
	rc := newRecorder(t, sdktrace.AlwaysSample(), quietLogger())
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = rc.tr.QueryTracer()
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	rc.app.Get("/q", func(c *plinth.Ctx) error {
		var n int
		if err := pool.QueryRow(c.Context(), "SELECT $1::int + 1", 41).Scan(&n); err != nil {
			return err
		}
		if _, err := pool.Exec(c.Context(), "SELEC broken"); err == nil {
			t.Error("a bad statement succeeded")
		}
		b := &pgx.Batch{}
		b.Queue("SELECT 1")
		b.Queue("SELECT 2")
		if err := pool.SendBatch(c.Context(), b).Close(); err != nil {
			return err
		}
		return c.NoContent(204)
	})
	if w := rc.do(t, httptest.NewRequest("GET", "/q", nil)); w.Code != 204 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	spans := rc.exp.GetSpans()
	byName := map[string]int{}
	var server trace.SpanContext
	for i, s := range spans {
		byName[s.Name] = i
		if s.SpanKind == trace.SpanKindServer {
			server = s.SpanContext
		}
	}
	t.Logf("spans: %v", names(spans))
	sel, ok := byName["SELECT"]
	if !ok {
		t.Fatalf("no SELECT span among %v", names(spans))
	}
	s := spans[sel]
	if s.SpanKind != trace.SpanKindClient || s.Parent.SpanID() != server.SpanID() {
		t.Errorf("SELECT span kind %v parent %v, want client child of %v", s.SpanKind, s.Parent.SpanID(), server.SpanID())
	}
	a := attrs(s)
	if a["db.system.name"].AsString() != "postgresql" || a["db.query.text"].AsString() != "SELECT $1::int + 1" ||
		a["db.operation.name"].AsString() != "SELECT" || a["db.namespace"].AsString() == "" || a["server.address"].AsString() == "" {
		t.Errorf("SELECT attributes %v", s.Attributes)
	}
	bad := spans[byName["SELEC"]]
	if bad.Status.Code != codes.Error || attrs(bad)["db.response.status_code"].AsString() != "42601" {
		t.Errorf("failed query: status %v, attributes %v", bad.Status, bad.Attributes)
	}
	batch, ok := byName["BATCH"]
	if !ok {
		t.Fatalf("no BATCH span among %v", names(spans))
	}
	if n := attrs(spans[batch])["db.operation.batch.size"].AsInt64(); n != 2 || len(spans[batch].Events) != 2 {
		t.Errorf("batch size %d, %d events", n, len(spans[batch].Events))
	}
}
