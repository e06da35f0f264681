package tracing

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// QueryTracer returns a pgx tracer (pgx.QueryTracer and pgx.BatchTracer)
// that makes a client span per query and per batch, child of the span in
// the query's context: pass c.Context() (or a context derived from it) to
// pgx and the query joins the request's trace. Set it on the pool's
// configuration before the pool is made:
//
//	cfg, _ := pgxpool.ParseConfig(url)
//	cfg.ConnConfig.Tracer = t.QueryTracer()
//
// A query span is named after the statement's first keyword ("SELECT",
// "INSERT"; "postgresql" when there is none) and carries db.system.name
// ("postgresql"), db.query.text (the SQL as written, with its $n
// placeholders: the arguments are not recorded), db.operation.name,
// db.namespace (the database), server.address and server.port; a failed
// query has status Error, error.type and, for a PostgreSQL error,
// db.response.status_code (the SQLSTATE). A batch is one span, "BATCH",
// with db.operation.batch.size and an event per query. With tracing off the
// tracer does nothing.
func (t *Tracing) QueryTracer() pgx.QueryTracer { return &queryTracer{t: t} }

type queryTracer struct{ t *Tracing }

var (
	_ pgx.QueryTracer = (*queryTracer)(nil)
	_ pgx.BatchTracer = (*queryTracer)(nil)
)

func (q *queryTracer) start(ctx context.Context, conn *pgx.Conn, name string, attrs ...attribute.KeyValue) context.Context {
	ctx, span := q.t.tracer.Start(ctx, name, clientKind...)
	if !span.IsRecording() {
		return ctx
	}
	attrs = append(attrs, semconv.DBSystemNamePostgreSQL)
	if conn != nil {
		if cfg := conn.Config(); cfg != nil {
			if cfg.Database != "" {
				attrs = append(attrs, semconv.DBNamespace(cfg.Database))
			}
			if cfg.Host != "" {
				attrs = append(attrs, semconv.ServerAddress(cfg.Host))
			}
			if cfg.Port != 0 {
				attrs = append(attrs, semconv.ServerPort(int(cfg.Port)))
			}
		}
	}
	span.SetAttributes(attrs...)
	return ctx
}

func end(ctx context.Context, err error) {
	span := trace.SpanFromContext(ctx)
	if err != nil && span.IsRecording() {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			span.SetAttributes(semconv.DBResponseStatusCode(pgErr.Code), semconv.ErrorTypeKey.String(pgErr.Code))
		} else {
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
		}
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// TraceQueryStart starts the query's span.
func (q *queryTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if q.t.off {
		return ctx
	}
	op := operation(data.SQL)
	name := op
	if name == "" {
		name = "postgresql"
	}
	attrs := []attribute.KeyValue{semconv.DBQueryText(data.SQL)}
	if op != "" {
		attrs = append(attrs, semconv.DBOperationName(op))
	}
	return q.start(ctx, conn, name, attrs...)
}

// TraceQueryEnd ends it.
func (q *queryTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	if q.t.off {
		return
	}
	end(ctx, data.Err)
}

// TraceBatchStart starts the batch's span.
func (q *queryTracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	if q.t.off {
		return ctx
	}
	n := 0
	if data.Batch != nil {
		n = data.Batch.Len()
	}
	return q.start(ctx, conn, "BATCH", semconv.DBOperationName("BATCH"), semconv.DBOperationBatchSize(n))
}

// TraceBatchQuery adds an event per query of the batch.
func (q *queryTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	if q.t.off {
		return
	}
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{semconv.DBQueryText(data.SQL)}
	if data.Err != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errorType(data.Err)), attribute.String("exception.message", data.Err.Error()))
	}
	span.AddEvent("query", trace.WithAttributes(attrs...))
}

// TraceBatchEnd ends the batch's span.
func (q *queryTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	if q.t.off {
		return
	}
	end(ctx, data.Err)
}

// operation is the statement's first keyword, upper-cased: db.operation.name.
func operation(sql string) string {
	sql = strings.TrimLeft(sql, " \t\r\n(")
	i := 0
	for i < len(sql) && (sql[i] >= 'a' && sql[i] <= 'z' || sql[i] >= 'A' && sql[i] <= 'Z') {
		i++
	}
	if i == 0 {
		return ""
	}
	return strings.ToUpper(sql[:i])
}
