package fullstack

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/middleware/compress"
	"github.com/plinth-go/plinth/observe/metrics"
	"github.com/plinth-go/plinth/observe/tracing"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// newPlinth: plinth.New() (its default layer: recovery, request ID,
// security headers, 30 s handler timeout), then observe/tracing,
// observe/metrics (each installs its middleware with Use), then
// middleware.AccessLog (a slog JSON handler to discard),
// middleware.NewConcurrencyLimiter and compress.New (gzip only, as the
// others; MinSize 1 so that the 89-byte body is compressed, as the others
// compress every size).
func newPlinth(reg *prometheus.Registry, tp *sdktrace.TracerProvider) (http.Handler, error) {
	app := plinth.New()
	if _, err := tracing.New(app, tracing.Config{TracerProvider: tp, Propagator: Propagator()}); err != nil {
		return nil, err
	}
	metrics.New(app, metrics.Config{Registry: reg})
	app.Use(
		middleware.AccessLog(middleware.AccessLogConfig{Logger: discardLogger()}),
		middleware.NewConcurrencyLimiter(middleware.ConcurrencyLimiterConfig{Max: MaxInFlight}).Middleware(),
		compress.New(compress.Config{
			Encodings: []string{compress.Gzip},
			Levels:    map[string]int{compress.Gzip: GzipLevel},
			MinSize:   1,
		}),
	)
	app.Get("/accounts/{id}", func(c *plinth.Ctx) error {
		id, err := strconv.Atoi(c.Param("id"))
		if err != nil {
			return c.Text(http.StatusBadRequest, suite.InvalidID)
		}
		acct := suite.NewAccount(id)
		return c.JSON(http.StatusOK, &acct)
	})
	app.Build()
	return app, nil
}
