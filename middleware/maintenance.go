package middleware

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth"
)

// DefaultMaintenanceRetryAfter is the Retry-After of Enable(0): a minute,
// since a client retrying sooner only adds load to a service that says it
// is down, and most maintenance windows are longer.
const DefaultMaintenanceRetryAfter = time.Minute

// MaintenanceConfig configures NewMaintenance. Its zero value is valid and
// the default: no allow-listed path, Retry-After one minute.
type MaintenanceConfig struct {
	// AllowPaths lists request paths served normally during maintenance,
	// matched exactly against the URL path (for example the path of the
	// admin endpoint, "/admin/maintenance"). Each must start with "/".
	// Default none.
	AllowPaths []string

	// AllowPrefixes lists path prefixes served normally during
	// maintenance, matched on segment boundaries: "/admin" matches
	// "/admin" and "/admin/users", not "/administrator"; a prefix ending
	// in "/" matches whatever follows it. Each must start with "/".
	// Default none.
	//
	// The server's health probes (Config.LivenessPath, ReadinessPath) need
	// no entry: Plinth answers them before routing, so no middleware sees
	// them.
	AllowPrefixes []string

	// RetryAfter is the Retry-After used by Enable(0) and by the admin
	// endpoint and signal when they give none. 0 means
	// DefaultMaintenanceRetryAfter (1 minute).
	RetryAfter time.Duration

	// Detail is the problem detail of the 503 answer. "" means "the service
	// is down for maintenance".
	Detail string

	// Logger receives a line whenever the mode changes. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Maintenance is a maintenance-mode switch: while enabled, its middleware
// answers every request, except on allow-listed paths, with a 503 problem
// and Retry-After. The switch is an atomic pointer: toggling it is safe from
// any goroutine and a request reads it once, with no lock and no file access.
type Maintenance struct {
	state      atomic.Pointer[maintenanceState] // nil when disabled
	exact      map[string]struct{}
	prefixes   []string
	retryAfter time.Duration
	detail     string
	log        *slog.Logger
}

type maintenanceState struct {
	retryAfter time.Duration
	header     []string // pre-rendered Retry-After
	since      time.Time
}

// Validate reports the first problem of c that makes NewMaintenance panic
// (an AllowPaths or AllowPrefixes entry that does not start with "/"), as
// an error naming the field and the entry, or nil.
func (c MaintenanceConfig) Validate() error {
	for _, p := range c.AllowPaths {
		if !strings.HasPrefix(p, "/") {
			return errors.New("middleware: MaintenanceConfig.AllowPaths entry " + strconv.Quote(p) + " must start with /")
		}
	}
	for _, p := range c.AllowPrefixes {
		if !strings.HasPrefix(p, "/") {
			return errors.New("middleware: MaintenanceConfig.AllowPrefixes entry " + strconv.Quote(p) + " must start with /")
		}
	}
	return nil
}

// NewMaintenance returns a Maintenance switch, disabled. It panics if cfg
// is invalid, with the message MaintenanceConfig.Validate returns.
func NewMaintenance(cfg MaintenanceConfig) *Maintenance {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	m := &Maintenance{
		exact:      make(map[string]struct{}, len(cfg.AllowPaths)),
		retryAfter: cfg.RetryAfter,
		detail:     cfg.Detail,
		log:        cfg.Logger,
	}
	for _, p := range cfg.AllowPaths {
		m.exact[p] = struct{}{}
	}
	m.prefixes = append(m.prefixes, cfg.AllowPrefixes...)
	if m.retryAfter <= 0 {
		m.retryAfter = DefaultMaintenanceRetryAfter
	}
	if m.detail == "" {
		m.detail = "the service is down for maintenance"
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	return m
}

// Enable switches maintenance mode on (or updates its Retry-After when it is
// on already). retryAfter is sent as Retry-After in whole seconds, rounded
// up; 0 or less means MaintenanceConfig.RetryAfter (default 1 minute).
func (m *Maintenance) Enable(retryAfter time.Duration) {
	if retryAfter <= 0 {
		retryAfter = m.retryAfter
	}
	st := &maintenanceState{
		retryAfter: retryAfter,
		header:     []string{strconv.FormatInt(ceilSeconds(retryAfter), 10)},
		since:      time.Now(),
	}
	if old := m.state.Load(); old != nil {
		st.since = old.since
	}
	m.state.Store(st)
	m.log.Info("middleware: maintenance mode on", "retry_after", retryAfter)
}

// Disable switches maintenance mode off.
func (m *Maintenance) Disable() {
	if m.state.Swap(nil) != nil {
		m.log.Info("middleware: maintenance mode off")
	}
}

// Enabled reports whether maintenance mode is on.
func (m *Maintenance) Enabled() bool { return m.state.Load() != nil }

// Middleware returns the native middleware: while the switch is on, a
// request whose path is not allow-listed gets a 503 problem with
// Retry-After and the handler does not run. Requests already running when
// the switch flips finish normally.
//
// Cost while disabled: one atomic load, 0 allocations
// (TestMaintenanceAllocs). While enabled a refusal allocates its problem.
// Measured figures, with the command that produces them:
// docs/middleware.md, "Maintenance mode".
func (m *Maintenance) Middleware() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			st := m.state.Load()
			if st == nil || m.allowed(c.Request().URL.Path) {
				return next(c)
			}
			c.Header()["Retry-After"] = st.header
			return plinth.Error(http.StatusServiceUnavailable, m.detail)
		}
	}
}

func (m *Maintenance) allowed(path string) bool {
	if _, ok := m.exact[path]; ok {
		return true
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(path, p) &&
			(len(path) == len(p) || p[len(p)-1] == '/' || path[len(p)] == '/') {
			return true
		}
	}
	return false
}

// maintenanceStatus is the admin endpoint's JSON document.
type maintenanceStatus struct {
	Enabled    bool       `json:"enabled"`
	RetryAfter int64      `json:"retry_after,omitempty"` // seconds
	Since      *time.Time `json:"since,omitempty"`
}

// maintenanceRequest is the optional body of POST and PUT.
type maintenanceRequest struct {
	RetryAfter *int64 `json:"retry_after"` // seconds
}

// maxMaintenanceBody bounds the admin endpoint's request body.
const maxMaintenanceBody = 4 << 10

// Handler returns an admin endpoint for the switch, answering JSON
// ({"enabled":true,"retry_after":300,"since":"2026-11-30T10:00:00Z"}):
//
//   - GET or HEAD: the current state.
//   - POST or PUT: switch on; an optional JSON body {"retry_after": seconds}
//     (a whole number of seconds, 0 for the default, at most a year) sets
//     Retry-After. An empty body is fine; malformed JSON, unknown fields or
//     an out-of-range value get a 400 problem, a body over 4 KiB a 413.
//   - DELETE: switch off.
//   - any other method: 405 problem with Allow.
//
// It does no authentication: mount it behind your own, and add its path to
// AllowPaths, or it will answer 503 once maintenance is on, like any other
// route, and the mode can no longer be switched off over HTTP. The value is
// a plinth.HandlerFunc, so it runs natively when registered with app.Handle.
func (m *Maintenance) Handler() http.Handler {
	return plinth.HandlerFunc(func(c *plinth.Ctx) error {
		r := c.Request()
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodPost, http.MethodPut:
			d, err := readMaintenanceRequest(c)
			if err != nil {
				return err
			}
			m.Enable(d)
		case http.MethodDelete:
			m.Disable()
		default:
			c.Header()["Allow"] = maintenanceAllow
			return plinth.Errorf(http.StatusMethodNotAllowed, "method %s is not allowed here; use GET, POST, PUT or DELETE", r.Method)
		}
		c.Header()["Cache-Control"] = noStore
		return c.JSON(http.StatusOK, m.status())
	})
}

var (
	maintenanceAllow = []string{"GET, HEAD, POST, PUT, DELETE"}
	noStore          = []string{"no-store"}
)

func readMaintenanceRequest(c *plinth.Ctx) (time.Duration, error) {
	r := c.Request()
	if r.Body == nil {
		return 0, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer(), r.Body, maxMaintenanceBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return 0, plinth.Error(http.StatusRequestEntityTooLarge, "the body is larger than 4 KiB")
		}
		return 0, plinth.BadRequest("could not read the body").Wrap(err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return 0, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req maintenanceRequest
	if err := dec.Decode(&req); err != nil {
		return 0, plinth.BadRequest(`the body must be a JSON object such as {"retry_after": 300}: ` + err.Error())
	}
	if dec.More() {
		return 0, plinth.BadRequest("the body must hold a single JSON object")
	}
	if req.RetryAfter == nil {
		return 0, nil
	}
	const maxSeconds = 366 * 24 * 3600
	if s := *req.RetryAfter; s < 0 || s > maxSeconds {
		return 0, plinth.Errorf(http.StatusBadRequest, "retry_after must be between 0 and %d seconds, got %d", maxSeconds, s)
	}
	return time.Duration(*req.RetryAfter) * time.Second, nil
}

func (m *Maintenance) status() *maintenanceStatus {
	st := m.state.Load()
	if st == nil {
		return &maintenanceStatus{}
	}
	since := st.since.UTC().Truncate(time.Second)
	return &maintenanceStatus{Enabled: true, RetryAfter: ceilSeconds(st.retryAfter), Since: &since}
}

// NotifyOnSignal toggles maintenance mode each time the process receives one
// of sig (SIGUSR1 is the usual choice: kill -USR1 <pid>); switching on uses
// MaintenanceConfig.RetryAfter. It returns a function that stops listening
// and waits for the listening goroutine to exit; call it on shutdown. It
// panics without a signal, since signal.Notify would then relay every
// signal, the interrupt included.
func (m *Maintenance) NotifyOnSignal(sig ...os.Signal) (stop func()) {
	if len(sig) == 0 {
		panic("middleware: NotifyOnSignal needs at least one signal")
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig...)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case s := <-ch:
				if m.Enabled() {
					m.Disable()
				} else {
					m.Enable(0)
				}
				m.log.Info("middleware: maintenance mode toggled by signal", "signal", s.String(), "enabled", m.Enabled())
			case <-done:
				return
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			wg.Wait()
		})
	}
}
