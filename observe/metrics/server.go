package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/plinth-go/plinth/observe/internal/envconf"
)

// EnvAddr is the environment variable that overrides Config.Addr.
const EnvAddr = "PLINTH_METRICS_ADDR"

// server is the metrics' own HTTP server, on Config.Addr.
type server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// resolveAddr returns the address of the separate server: EnvAddr when set,
// cfgAddr otherwise. It is the one place the package reads the environment,
// through the reader the core and every module share.
func resolveAddr(cfgAddr string) (string, error) {
	addr := cfgAddr
	e := envconf.New(nil)
	e.Addr(EnvAddr, &addr)
	return addr, e.Err("metrics")
}

// checkAddr checks a listen address: host:port, the host possibly empty.
func checkAddr(addr string) error { return envconf.CheckAddr(addr) }

// listen starts the separate server: it is the App's OnStart hook's work,
// so a port in use stops Run and Serve before the App accepts anything.
func (m *Metrics) listen(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", m.addr)
	if err != nil {
		return fmt.Errorf("metrics: serving on %s: %w", m.addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+m.addrPath, m.handler)
	s := &server{
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       120 * time.Second,
			MaxHeaderBytes:    64 << 10,
		},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	m.mu.Lock()
	m.srv = s
	m.mu.Unlock()
	return nil
}

// Addr returns the address the separate server (Config.Addr,
// PLINTH_METRICS_ADDR) listens on while it runs, the port resolved (an
// address ending in ":0" gets one from the system), or "" when it does not
// run: before the App starts, after it stops, or with the metrics served on
// the App.
func (m *Metrics) Addr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.srv == nil {
		return ""
	}
	return m.srv.ln.Addr().String()
}

// stop shuts the separate server down: the App's OnStop hook, run after
// the App's drain, so the metrics stay scrapeable while it drains.
func (m *Metrics) stop(ctx context.Context) error {
	m.mu.Lock()
	s := m.srv
	m.srv = nil
	m.mu.Unlock()
	if s == nil {
		return nil
	}
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("metrics: stopping the server on %s: %w", m.addr, err)
	}
	return nil
}
