package fullstack

import (
	"log"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// newChi: chi's middleware.RequestID (echoed on the response by a one-line
// middleware: chi keeps it in the context only), middleware.Recoverer,
// otelhttp.NewMiddleware, chi's request logger (middleware.Logger's
// DefaultLogFormatter on a log.Logger to io.Discard), middleware.Throttle,
// middleware.Compress; Prometheus as promhttp.InstrumentHandlerDuration
// around each route's handler, curried with the route pattern.
func newChi(reg *prometheus.Registry, tp *sdktrace.TracerProvider) (http.Handler, error) {
	hist := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: histName, Help: histHelp},
		[]string{"code", "method", "route"})
	if err := reg.Register(hist); err != nil {
		return nil, err
	}
	mux := chi.NewRouter()
	mux.Use(
		middleware.RequestID,
		chiEchoRequestID,
		middleware.Recoverer,
		otelhttp.NewMiddleware("http.server", otelhttp.WithTracerProvider(tp), otelhttp.WithPropagators(Propagator())),
		middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: log.New(discard{}, "", log.LstdFlags), NoColor: true}),
		middleware.Throttle(MaxInFlight),
		middleware.Compress(GzipLevel),
	)
	route := func(pattern string, h http.HandlerFunc) {
		mux.Method(http.MethodGet, pattern,
			promhttp.InstrumentHandlerDuration(hist.MustCurryWith(prometheus.Labels{"route": pattern}), h))
	}
	route("/accounts/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeAccount(w, chi.URLParam(r, "id"))
	})
	return mux, nil
}

func chiEchoRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()[suite.RequestIDHeader] = []string{middleware.GetReqID(r.Context())}
		next.ServeHTTP(w, r)
	})
}

// discard is io.Discard as a type of its own (log.New special-cases
// io.Discard and skips formatting: a real logger formats every line).
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
