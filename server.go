package plinth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Run serves the App until SIGINT or SIGTERM, then drains (see Serve). Its
// configuration is the App's Config with the PLINTH_* environment variables
// applied; a bad value fails here, naming the variable. A second signal
// during the drain exits the process at once with status 1. Run returns nil
// after a clean drain. With PLINTH_INSPECT=routes or openapi, in a binary
// built with -tags plinth_inspect, Run prints the route table or the OpenAPI
// document and exits the process instead, before listening
// (server_inspect.go; `plinth routes`, `plinth openapi`); a normal build
// logs a warning and serves.
//
// SIGHUP upgrades in place (Config.Upgrade, on by default when standard
// input is not a terminal): Run starts the binary at the path it was
// started by (os.Args[0]) again, hands it the listening sockets, waits
// until it is ready (its OnStart hooks succeeded, its accept loops run and
// its readiness checks pass, within Config.UpgradeTimeout) and then drains
// as on SIGTERM and returns nil. If the new process fails, this one keeps serving, logs why at error
// level, and a later SIGHUP tries again. In a terminal SIGHUP stops the
// process as SIGTERM does; with Upgrade "off" it is ignored. Sockets
// passed by systemd (LISTEN_PID, LISTEN_FDS) are served instead of
// opening Config.Addr; so are those handed over by an upgrade
// (docs/deploy.md). Config.PIDFile names the process serving.
func (a *App) Run() error {
	inh, inhErr := takeInheritance() // before anything: the variables must not reach a child
	exe, exeErr := selfPath()        // now: a deploy may replace the file later
	cfg, err := a.configure()
	if err != nil {
		return err
	}
	if err := a.inspect(cfg); err != nil { // PLINTH_INSPECT: describe the App and exit
		return err
	}
	log := a.logger(cfg)
	if inhErr != nil {
		return inhErr
	}
	lns := inh.lns
	if lns == nil {
		if lns, err = listen(cfg); err != nil {
			return err
		}
	} else {
		addrs := make([]string, len(lns))
		for i, ln := range lns {
			addrs[i] = ln.Addr().String()
		}
		msg := "plinth: serving on sockets handed over by the previous process (in-place upgrade), not opening PLINTH_ADDR"
		if inh.from == "systemd" {
			msg = "plinth: serving on sockets passed by systemd (socket activation: LISTEN_FDS), not opening PLINTH_ADDR"
		}
		log.Info(msg, "listeners", addrs, "names", inh.names)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	up := &upgrader{cfg: cfg, log: log, exe: exe, lns: lns}
	upOn := upgradeOn(cfg, stdinTerminal, os.Getpid())
	if upOn && exeErr != nil {
		log.Error("plinth: in-place upgrade off: cannot find this binary's path", "error", exeErr)
		upOn = false
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	hup := up.signals(cfg, upOn, sig)
	served, pause := gated(lns, func() { a.whenReady(ctx, cfg, log, inh.readyW) })
	done := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		var attempt chan error
	wait:
		for {
			select {
			case s := <-sig:
				up.abort()
				a.logger(cfg).Info("plinth: signal received, draining; send it again to exit at once", "signal", s.String())
				stop()
				break wait
			case <-hup:
				if attempt != nil {
					log.Warn("plinth: SIGHUP: an upgrade is already in progress; ignored")
					continue
				}
				log.Info("plinth: SIGHUP: upgrading in place", "binary", exe)
				attempt = make(chan error, 1)
				go func() {
					_, err := up.attempt()
					attempt <- err
				}()
			case err := <-attempt:
				attempt = nil
				if err != nil {
					log.Error("plinth: in-place upgrade failed; still serving", "error", err)
					continue
				}
				pause() // the new process accepts from now on
				time.Sleep(handoverSettle)
				stop()
				break wait
			case <-done:
				return
			}
		}
		select {
		case s := <-sig:
			a.logger(cfg).Error("plinth: second signal, exiting without draining", "signal", s.String())
			os.Exit(1)
		case <-done:
		}
	})
	err = a.serve(ctx, served, cfg)
	signal.Stop(sig)
	close(done)
	watcher.Wait()
	if hup != nil {
		signal.Stop(hup)
	}
	if cfg.PIDFile != "" {
		removePIDFile(cfg.PIDFile, os.Getpid())
	}
	return err
}

// Serve serves connections from ln until ctx is cancelled, then drains:
// readiness answers 503 at once; after Config.DrainDelay the listener closes,
// idle keep-alive connections close, responses still in flight carry
// "Connection: close", and the requests in flight get Config.ShutdownTimeout
// to finish. Those that outlive it are cut off, and Serve's error says how
// many. Stop hooks (OnStop) run last, in reverse order. Serve
// returns nil after a clean drain.
//
// The configuration is the App's Config with the PLINTH_* environment
// variables applied; the listen address and ReusePort are ignored, as the
// caller owns ln. PLINTH_INSPECT makes it describe the App and exit, as Run,
// in a plinth_inspect build only.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	cfg, err := a.configure()
	if err != nil {
		return err
	}
	if err := a.inspect(cfg); err != nil { // PLINTH_INSPECT: describe the App and exit
		return err
	}
	return a.serve(ctx, []net.Listener{ln}, cfg)
}

// OnStart registers a hook that Run and Serve call, in order of
// registration, after the App is built and before its listeners accept a
// connection (warming a cache, checking a dependency, a module's start-up
// work), with Serve's context. The first hook that fails stops start-up:
// nothing is served, the listeners close, the OnStop hooks run (in
// reverse order, within Config.ShutdownTimeout, so that what the earlier
// hooks opened is closed), and Serve returns the hook's error. An App used
// as a plain http.Handler (httptest) runs no hooks.
func (a *App) OnStart(hook func(ctx context.Context) error) {
	a.mustBeOpen()
	a.startHooks = append(a.startHooks, hook)
}

// start runs the OnStart hooks; on a failure it runs the OnStop hooks
// and returns the failure with theirs.
func (a *App) start(ctx context.Context, cfg Config, log *slog.Logger) error {
	for i, hook := range a.startHooks {
		err := hook(ctx)
		if err == nil {
			continue
		}
		log.Error("plinth: start-up hook failed; not serving", "hook", i+1, "of", len(a.startHooks), "error", err)
		errs := []error{fmt.Errorf("plinth: start-up hook %d of %d: %w", i+1, len(a.startHooks), err)}
		hctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		for _, stop := range slices.Backward(a.stopHooks) {
			if err := stop(hctx); err != nil {
				errs = append(errs, fmt.Errorf("plinth: OnStop hook: %w", err))
			}
		}
		return errors.Join(errs...)
	}
	return nil
}

// OnStop registers a hook run after the drain (a database pool's Close,
// say), in reverse order of registration, with a context bounded by the
// remaining grace period. Hooks' errors are joined into Serve's.
func (a *App) OnStop(hook func(ctx context.Context) error) {
	a.mustBeOpen()
	a.stopHooks = append(a.stopHooks, hook)
}

// Draining returns a channel closed when the App starts draining. Handlers
// of long-lived or hijacked connections (WebSocket, server-sent events)
// select on it to say goodbye and finish within the grace period.
func (a *App) Draining() <-chan struct{} { return a.drainCh }

// configure resolves the server configuration and the App's settings from
// the App's fields and the PLINTH_* variables, every bad value named in one
// error, and keeps the settings for Build.
func (a *App) configure() (Config, error) {
	cfg, set, err := a.resolve(os.LookupEnv)
	if err != nil {
		return cfg, err
	}
	a.warnAtStart(a.logger(cfg), set, os.Environ())
	a.mu.Lock()
	if a.built.Load() == nil {
		a.settings = &set
	}
	a.mu.Unlock()
	return cfg, nil
}

func (a *App) logger(cfg Config) *slog.Logger {
	switch {
	case cfg.Logger != nil:
		return cfg.Logger
	case a.Logger != nil:
		return a.Logger
	}
	return slog.Default()
}

func listen(cfg Config) ([]net.Listener, error) {
	n := max(cfg.ReusePort, 1)
	lc := net.ListenConfig{}
	if cfg.ReusePort > 1 {
		if _, port, err := net.SplitHostPort(cfg.Addr); err == nil && (port == "0" || port == "") {
			return nil, fmt.Errorf("plinth: PLINTH_REUSE_PORT=%d needs a fixed port in PLINTH_ADDR, not %q: with port 0 each listener would get its own", cfg.ReusePort, cfg.Addr)
		}
		lc.Control = reusePort
	}
	lns := make([]net.Listener, 0, n)
	for range n {
		ln, err := lc.Listen(context.Background(), "tcp", cfg.Addr)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, fmt.Errorf("plinth: listen on %s (PLINTH_ADDR): %w", cfg.Addr, err)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// frontDoor is the handler the http.Server calls: probes, the in-flight
// count, then the App.
type frontDoor struct {
	app      *App
	cfg      Config
	inflight atomic.Int64
}

var connectionClose = []string{"close"}

// closeHTTP1 asks an HTTP/1.x client to close the connection after this
// response. Over HTTP/2 the header would make net/http end the whole
// connection (GOAWAY), every other stream on it included, so it is not set
// there: the stream ends by itself, and flow control bounds what it sends.
func closeHTTP1(h http.Header, r *http.Request) {
	if r.ProtoMajor == 1 {
		h["Connection"] = connectionClose
	}
}

// fileHeadroom is how many open files MaxConnections leaves for everything
// that is not a client connection.
const fileHeadroom = 128

func (f *frontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Path; p == f.cfg.LivenessPath || p == f.cfg.ReadinessPath {
		// A probe never reads a body: one sent is cut, not drained.
		body := hasBody(r)
		if body {
			closeHTTP1(w.Header(), r)
		}
		if p == f.cfg.LivenessPath {
			f.app.health.serveLive(w)
		} else {
			f.app.health.serveReady(w, r, f.cfg.ReadinessCacheTTL, f.cfg.ReadinessJSON)
		}
		if body {
			cutUnreadBody(w)
		}
		return
	}
	f.inflight.Add(1)
	defer f.inflight.Add(-1)
	f.app.ServeHTTP(w, r)
}

func (a *App) serve(ctx context.Context, lns []net.Listener, cfg Config) error {
	log := a.logger(cfg)
	a.defaultMaxBody.Store(cfg.MaxBodyBytes)
	a.bodyReadTimeout.Store(int64(cfg.BodyReadTimeout))
	a.minBodyRate.Store(cfg.MinBodyRate)
	if err := checkEngine(cfg); err != nil {
		for _, ln := range lns {
			ln.Close()
		}
		return err
	}
	a.Build()
	if err := a.start(ctx, cfg, log); err != nil {
		for _, ln := range lns {
			ln.Close()
		}
		return err
	}
	front := &frontDoor{app: a, cfg: cfg}
	var (
		srv       httpServer
		serveOne  serveFunc
		protocols string
	)
	if cfg.Engine == EngineFast {
		es, p := newEngineServer(ctx, front, cfg, log)
		srv, serveOne, protocols = es, es.Serve, p
	} else {
		hs, p := newServer(ctx, front, cfg, log)
		srv, serveOne, protocols = hs, func(ln net.Listener) error { return serveListener(hs, ln, cfg) }, p
	}
	limiter := newConnLimiter(&cfg, log)
	errc := make(chan error, len(lns))
	for _, ln := range lns {
		go func() { errc <- serveOne(limitedListener(ln, limiter, cfg)) }()
	}
	log.Info("plinth: serving",
		"addr", lns[0].Addr().String(), "listeners", len(lns), "engine", engineName(cfg), "protocols", protocols,
		"header_read_timeout", offOr(cfg.HeaderReadTimeout), "body_read_timeout", offOr(cfg.BodyReadTimeout),
		"idle_timeout", cfg.IdleTimeout, "max_header_bytes", cfg.MaxHeaderBytes,
		"max_body_bytes", offOr(cfg.MaxBodyBytes), "max_connections", offOr(cfg.MaxConnections),
		"drain_delay", cfg.DrainDelay, "shutdown_timeout", cfg.ShutdownTimeout,
		"probes", cfg.LivenessPath+" "+cfg.ReadinessPath)

	select {
	case err := <-errc:
		// A listener failed before any shutdown was asked for.
		srv.Close()
		return fmt.Errorf("plinth: serving stopped: %w", err)
	case <-ctx.Done():
	}
	return a.drain(srv, front, limiter, cfg, log)
}

// newServer returns the hardened http.Server for cfg, and the protocols it
// speaks, for the startup line.
func newServer(ctx context.Context, h http.Handler, cfg Config, log *slog.Logger) (*http.Server, string) {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.HeaderReadTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes - headerSlack, // net/http reads headerSlack more
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		// net/http's own "OPTIONS *" answer reads up to 4 KiB of a body
		// with no deadline; the router answers it (serveAsterisk) instead.
		DisableGeneralOptionsHandler: true,
	}
	protocols := "HTTP/1.1"
	tlsOn := cfg.TLSCertFile != ""
	if tlsOn {
		protocols = "HTTP/1.1, HTTP/2 (TLS)"
	}
	if cfg.H2C {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetHTTP2(tlsOn)
		srv.Protocols.SetUnencryptedHTTP2(true)
		protocols += ", h2c"
	}
	return srv, protocols
}

// newConnLimiter returns the connection count that every listener shares,
// nil for no limit. Past the process's file limit, accept itself fails
// (EMFILE) and net/http backs off for up to a second: the limit is kept
// below it, with room for the listeners, logs and the app's own files, so
// that the fast refusal is what a flood meets.
func newConnLimiter(cfg *Config, log *slog.Logger) *connLimiter {
	if cfg.MaxConnections <= 0 {
		return nil
	}
	if fl := fileLimit(); fl > 0 && cfg.MaxConnections > fl-fileHeadroom {
		capped := max(fl-fileHeadroom, 1)
		log.Warn("plinth: max connections lowered to fit the open-file limit",
			"configured", cfg.MaxConnections, "effective", capped, "file_limit", fl)
		cfg.MaxConnections = capped
	}
	return &connLimiter{max: int64(cfg.MaxConnections)}
}

// limitedListener puts ln behind limiter, if there is one.
func limitedListener(ln net.Listener, limiter *connLimiter, cfg Config) net.Listener {
	if limiter == nil {
		return ln
	}
	ll := &limitListener{Listener: ln, connLimiter: limiter, refusal: refusal}
	if cfg.TLSCertFile != "" {
		ll.refusal = nil // see limitListener
	}
	return ll
}

// serveListener serves ln until the server closes, over TLS when cfg says.
func serveListener(srv *http.Server, ln net.Listener, cfg Config) error {
	if cfg.TLSCertFile != "" {
		return srv.ServeTLS(ln, cfg.TLSCertFile, cfg.TLSKeyFile)
	}
	return srv.Serve(ln)
}

func (a *App) drain(srv httpServer, front *frontDoor, limiter *connLimiter, cfg Config, log *slog.Logger) error {
	start := time.Now()
	a.health.draining.Store(true)
	a.drainOnce.Do(func() { close(a.drainCh) })
	a.sse.shutdown() // every open event stream gets its final event and ends
	log.Info("plinth: draining", "in_flight", front.inflight.Load(), "drain_delay", cfg.DrainDelay, "grace", cfg.ShutdownTimeout)
	if cfg.DrainDelay > 0 {
		time.Sleep(cfg.DrainDelay)
	}
	graceCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	var errs []error
	err := srv.Shutdown(graceCtx)
	if err == nil {
		// Shutdown does not wait for hijacked connections (WebSocket): their
		// handlers, told by Draining, get the rest of the grace period too.
		err = waitIdle(graceCtx, &front.inflight)
	}
	if err != nil {
		cut := front.inflight.Load()
		srv.Close()
		errs = append(errs, fmt.Errorf("plinth: grace period of %s expired: %d requests cut off", cfg.ShutdownTimeout, cut))
	}
	for _, hook := range slices.Backward(a.stopHooks) {
		hctx, hcancel := context.WithTimeout(context.Background(), max(time.Until(start.Add(cfg.DrainDelay+cfg.ShutdownTimeout)), time.Second))
		if err := hook(hctx); err != nil {
			errs = append(errs, fmt.Errorf("plinth: OnStop hook: %w", err))
		}
		hcancel()
	}
	var refused int64
	if limiter != nil {
		refused = limiter.refused.Load()
	}
	err = errors.Join(errs...)
	log.Info("plinth: stopped", "took", time.Since(start).Round(time.Millisecond), "refused_connections", refused, "clean", err == nil)
	return err
}

// waitIdle waits until no request is in flight, or ctx ends.
func waitIdle(ctx context.Context, inflight *atomic.Int64) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for inflight.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}
