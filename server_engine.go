package plinth

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"

	"github.com/plinth-go/plinth/internal/engine"
)

// httpServer is what serve and drain need of the server under the App:
// net/http's *http.Server and the engine's *engine.Server both are one.
type httpServer interface {
	Shutdown(ctx context.Context) error
	Close() error
}

// engineName is the engine of cfg for the startup line.
func engineName(cfg Config) string {
	if cfg.Engine == EngineFast {
		return EngineFast
	}
	return EngineStd
}

// checkEngine refuses what the engine does not serve, rather than serving
// it some other way in silence.
func checkEngine(cfg Config) error {
	if cfg.Engine != EngineFast {
		return nil
	}
	var errs []error
	if cfg.TLSCertFile != "" {
		errs = append(errs, errors.New("plinth: PLINTH_ENGINE=fast serves HTTP/1.1 in clear text only: TLS (PLINTH_TLS_CERT_FILE) and HTTP/2 need the std engine; terminate TLS in front, or unset PLINTH_ENGINE"))
	}
	if cfg.H2C {
		errs = append(errs, errors.New("plinth: PLINTH_ENGINE=fast does not speak h2c (PLINTH_H2C): use the std engine for HTTP/2"))
	}
	return errors.Join(errs...)
}

// newEngineServer returns Plinth's engine configured as newServer configures
// net/http's, and the protocols it speaks.
func newEngineServer(ctx context.Context, h http.Handler, cfg Config, log *slog.Logger) (*engine.Server, string) {
	srv := engine.New(engine.Config{
		Handler:           h,
		BaseContext:       context.WithoutCancel(ctx),
		HeaderReadTimeout: max(cfg.HeaderReadTimeout, 0),
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	})
	return srv, "HTTP/1.1"
}

// serveFunc serves one listener until the server closes.
type serveFunc func(net.Listener) error
