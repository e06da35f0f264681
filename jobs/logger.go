package jobs

import (
	"context"
	"log/slog"
)

// execKey is the context key of the running job (Client.Work).
type execKey struct{}

// running is what Work puts in a worker's context for Logger.
type running struct {
	c *Client
	e *Execution
}

// Logger returns, inside a worker (the context Client.Work gives it), the
// App's logger (Attach) with the job's job_id, kind and attempt, so that
// the worker's own records name the job as Work's do; elsewhere it returns
// slog.Default(). The logger is made when Logger is called: a worker that
// does not log pays nothing for it.
func Logger(ctx context.Context) *slog.Logger {
	r, ok := ctx.Value(execKey{}).(*running)
	if !ok {
		return slog.Default()
	}
	return r.c.logger().With(slog.Int64("job_id", r.e.ID), slog.String("kind", r.e.Kind), slog.Int("attempt", r.e.Attempt))
}
