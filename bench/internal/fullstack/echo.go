package fullstack

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo-contrib/echoprometheus"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/github.com/labstack/echo/otelecho"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// newEcho: echo's middleware.RequestID, middleware.Recover,
// otelecho.Middleware, middleware.Logger (its JSON line, to discard),
// echo-contrib's echoprometheus (a histogram by route, c.Path()), a
// semaphore (echo's own limiter is a rate limiter, not a concurrency one)
// and middleware.Gzip.
func newEcho(reg *prometheus.Registry, tp *sdktrace.TracerProvider) (http.Handler, error) {
	e := echo.New()
	sem := make(chan struct{}, MaxInFlight)
	e.Use(
		middleware.RequestID(),
		middleware.Recover(),
		otelecho.Middleware("http.server", otelecho.WithTracerProvider(tp), otelecho.WithPropagators(Propagator())),
		//lint:ignore SA1019 the access logger echo v4 users run; its replacement formats nothing by default
		middleware.LoggerWithConfig(middleware.LoggerConfig{Output: discard{}}),
		echoprometheus.NewMiddlewareWithConfig(echoprometheus.MiddlewareConfig{Registerer: reg}),
		func(next echo.HandlerFunc) echo.HandlerFunc { // concurrency limit
			return func(c echo.Context) error {
				select {
				case sem <- struct{}{}:
					defer func() { <-sem }()
					return next(c)
				default:
					return echo.NewHTTPError(http.StatusServiceUnavailable)
				}
			}
		},
		middleware.GzipWithConfig(middleware.GzipConfig{Level: GzipLevel}),
	)
	e.GET("/accounts/:id", func(c echo.Context) error {
		id, err := strconv.Atoi(c.Param("id"))
		if err != nil {
			return c.String(http.StatusBadRequest, suite.InvalidID)
		}
		acct := suite.NewAccount(id)
		return c.JSON(http.StatusOK, &acct)
	})
	return e, nil
}
