package fullstack

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-contrib/gzip"
	"github.com/gin-contrib/requestid"
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// newGin: gin.New() in release mode with gin-contrib/requestid,
// gin.Recovery, otelgin.Middleware, gin.LoggerWithWriter (to discard), a
// Prometheus middleware of our own (a histogram by c.FullPath(): the gin
// middlewares on offer either are not served for this Go or observe an
// unlabelled summary on the global registry), a semaphore (gin has no
// concurrency limiter) and gin-contrib/gzip.
func newGin(reg *prometheus.Registry, tp *sdktrace.TracerProvider) (http.Handler, error) {
	hist := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: histName, Help: histHelp},
		[]string{"code", "method", "route"})
	if err := reg.Register(hist); err != nil {
		return nil, err
	}
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	engine.HandleMethodNotAllowed = true
	sem := make(chan struct{}, MaxInFlight)
	engine.Use(
		requestid.New(),
		gin.Recovery(),
		otelgin.Middleware("http.server", otelgin.WithTracerProvider(tp), otelgin.WithPropagators(Propagator())),
		gin.LoggerWithWriter(discard{}),
		func(c *gin.Context) { // Prometheus
			start := time.Now()
			c.Next()
			hist.WithLabelValues(strconv.Itoa(c.Writer.Status()), c.Request.Method, c.FullPath()).
				Observe(time.Since(start).Seconds())
		},
		func(c *gin.Context) { // concurrency limit
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
				c.Next()
			default:
				c.AbortWithStatus(http.StatusServiceUnavailable)
			}
		},
		gzip.Gzip(GzipLevel),
	)
	engine.GET("/accounts/:id", func(c *gin.Context) {
		id, err := strconv.Atoi(c.Param("id"))
		if err != nil {
			c.String(http.StatusBadRequest, suite.InvalidID)
			return
		}
		acct := suite.NewAccount(id)
		c.JSON(http.StatusOK, &acct)
	})
	return engine, nil
}
