package plinth

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// Names of the default layers, for PLINTH_SKIP_MIDDLEWARE.
const (
	LayerRecover   = "recover"
	LayerRequestID = "requestid"
	LayerSecurity  = "security"
	LayerTimeout   = "timeout"
)

// defaultStack is the production layer New puts around every route and
// fallback: panic recovery, request IDs and security headers, fused into one
// function whose header values are rendered at startup. Each part can be
// dropped for profiling with PLINTH_SKIP_MIDDLEWARE=recover,requestid,
// security,timeout (logged loudly at Build).
type defaultStack struct {
	recover   bool
	requestID bool
	security  bool
	timeout   time.Duration // the App's handler timeout, 0: off
	// skipTimeout: PLINTH_SKIP_MIDDLEWARE named the timeout, which then
	// overrides groups' own timeouts too.
	skipTimeout bool
	ids         idGenerator
}

// layerSet is a set of default layers, as PLINTH_SKIP_MIDDLEWARE names them.
type layerSet struct{ recover, requestID, security, timeout bool }

// parseLayerSet reads a comma-separated list of layer names.
func parseLayerSet(list string) (layerSet, error) {
	var s layerSet
	for _, name := range strings.Split(list, ",") {
		switch name = strings.TrimSpace(strings.ToLower(name)); name {
		case "":
		case LayerRecover:
			s.recover = true
		case LayerRequestID:
			s.requestID = true
		case LayerSecurity:
			s.security = true
		case LayerTimeout:
			s.timeout = true
		default:
			return s, fmt.Errorf("unknown layer %q (known: %s, %s, %s, %s)",
				name, LayerRecover, LayerRequestID, LayerSecurity, LayerTimeout)
		}
	}
	return s, nil
}

// names lists the layers in the set, for the startup warning.
func (s layerSet) names() []string {
	var out []string
	for _, l := range [...]struct {
		on   bool
		name string
	}{{s.recover, LayerRecover}, {s.requestID, LayerRequestID}, {s.security, LayerSecurity}, {s.timeout, LayerTimeout}} {
		if l.on {
			out = append(out, l.name)
		}
	}
	return out
}

type headerValue struct {
	key   string
	value []string
}

// The default Content-Security-Policy, helmet 8's, in two parts around the
// script-src directive so that CSPNonce can slot a nonce in.
const (
	cspBefore = "default-src 'self';base-uri 'self';font-src 'self' https: data:;" +
		"form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self'"
	cspAfter = ";script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests"
)

// newDefaultStack builds the layer without the parts in skip.
func newDefaultStack(skip layerSet, timeout time.Duration, logger *slog.Logger) *defaultStack {
	d := &defaultStack{recover: !skip.recover, requestID: !skip.requestID, security: !skip.security, timeout: timeout}
	if skip.timeout {
		d.timeout, d.skipTimeout = 0, true
	}
	d.ids.init()
	if names := skip.names(); len(names) > 0 {
		logger.Warn("plinth: DEFAULT MIDDLEWARE SKIPPED (PLINTH_SKIP_MIDDLEWARE): this App is not production-safe",
			"skipped", strings.Join(names, ","))
	}
	return d
}

// wrap returns next inside the default layer, writing sec, the security
// headers of next's scope, and bounding it by timeout (0: none).
func (d *defaultStack) wrap(next HandlerFunc, sec *renderedSecurity, timeout time.Duration) HandlerFunc {
	if !d.security {
		sec = &renderedSecurity{}
	}
	return func(c *Ctx) error {
		h := c.rw.w.Header()
		var now time.Time // the clock is read once, for the ID and the deadline
		if timeout > 0 || d.requestID {
			now = time.Now()
		}
		if d.requestID {
			d.ids.assign(c, h, now)
		}
		sec.write(c, h)
		if d.recover {
			defer recoverPanic(c)
		}
		if timeout > 0 {
			return c.runWithTimeout(next, timeout, now)
		}
		return next(c)
	}
}

// recoverPanic turns a handler's panic into a 500 problem carrying the
// request ID, with the stack logged; if the response had started, it aborts
// the connection instead of writing a second response. http.ErrAbortHandler
// passes through untouched.
func recoverPanic(c *Ctx) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	c.logger().LogAttrs(c.req.Context(), slog.LevelError, "plinth: panic in handler",
		slog.Any("panic", p), slog.String("request_id", c.requestID), slog.String("method", c.req.Method),
		slog.String("path", c.req.URL.Path), slog.String("pattern", c.Pattern()), slog.String("stack", string(debug.Stack())))
	if c.Written() {
		panic(http.ErrAbortHandler) // net/http closes the connection, logging nothing
	}
	c.writeProblem(&Problem{Status: http.StatusInternalServerError})
}

// CSPNonce returns a fresh, cryptographically random nonce for this request
// and adds it to the script-src directive of the response's
// Content-Security-Policy, so that <script nonce="..."> elements of this
// response run and injected ones do not. Call it before the response starts;
// afterwards it returns "" (the header is gone). Requests that do not call it
// pay nothing; a call costs 16 random bytes, their encoding and the rebuilt
// header value. Without a Content-Security-Policy header (Bare, the security
// layer skipped, or the header removed) it returns a nonce and sets nothing.
func (c *Ctx) CSPNonce() string {
	if c.nonce != "" {
		return c.nonce
	}
	if c.rw.status != 0 {
		return ""
	}
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read does not fail on supported platforms
	c.nonce = base64.StdEncoding.EncodeToString(raw[:])
	h := c.rw.w.Header()
	if v := h["Content-Security-Policy"]; len(v) == 1 {
		h["Content-Security-Policy"] = []string{withNonce(v[0], c.nonce)}
	}
	return c.nonce
}

// maxRequestIDLen bounds an incoming X-Request-ID that is kept.
const maxRequestIDLen = 64

// assign keeps a well-formed incoming X-Request-ID or generates one, and
// echoes it on the response.
func (g *idGenerator) assign(c *Ctx, h http.Header, now time.Time) {
	if in := c.req.Header["X-Request-Id"]; len(in) == 1 && validRequestID(in[0]) {
		c.requestID = in[0]
		h["X-Request-Id"] = in // the request's own slice: no allocation
		return
	}
	id := g.next(now)
	c.requestID = id.s
	h["X-Request-Id"] = id.v[:]
}

// validRequestID accepts 1 to 64 bytes of letters, digits, '-', '_', '.'.
func validRequestID(s string) bool {
	if s == "" || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// idGenerator makes request IDs: 26 characters of Crockford base32 over 128
// bits (48 bits of milliseconds, a 48-bit random process prefix, a 32-bit
// counter), so IDs sort by time, are unique within the process and, with the
// random prefix, across processes. No system call per ID: the clock is read
// through the vDSO and the randomness is drawn once.
type idGenerator struct {
	prefix  [6]byte
	counter atomic.Uint32
}

func (g *idGenerator) init() {
	if _, err := rand.Read(g.prefix[:]); err != nil {
		binary.BigEndian.PutUint32(g.prefix[:], uint32(time.Now().UnixNano()))
		binary.BigEndian.PutUint16(g.prefix[4:], uint16(os.Getpid()))
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	g.counter.Store(binary.BigEndian.Uint32(b[:]))
}

// requestID is a generated ID with the header slice that carries it, in one
// allocation.
type requestID struct {
	b [26]byte
	s string
	v [1]string
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func (g *idGenerator) next(now time.Time) *requestID {
	var raw [16]byte
	ms := uint64(now.UnixMilli())
	raw[0], raw[1], raw[2], raw[3], raw[4], raw[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	copy(raw[6:12], g.prefix[:])
	binary.BigEndian.PutUint32(raw[12:], g.counter.Add(1))
	hi, lo := binary.BigEndian.Uint64(raw[:8]), binary.BigEndian.Uint64(raw[8:])
	id := new(requestID)
	// 128 bits in 26 five-bit digits, most significant first (the first
	// digit holds the top 3 bits).
	for i := 25; i >= 0; i-- {
		id.b[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	id.s = unsafe.String(&id.b[0], len(id.b)) // id.b is never written again
	id.v[0] = id.s
	return id
}
