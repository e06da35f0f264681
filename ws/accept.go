package ws

import (
	"bufio"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/plinth-go/plinth"
)

// Accept checks the handshake of c's request and upgrades it to a WebSocket
// connection registered with c's App.
//
// A request that cannot be upgraded gets no upgrade and a *plinth.Problem
// error, which the handler returns for the App's renderer to write: 405
// (not GET, with Allow: GET), 426 (not an HTTP/1.1 Upgrade to websocket,
// with Upgrade: websocket), 400 (Sec-WebSocket-Version other than 13, with
// Sec-WebSocket-Version: 13; Sec-WebSocket-Key missing, repeated or not 16
// bytes in base64), 403 (cross-origin, see Config.OriginPatterns), 503 with
// Retry-After (over Config.MaxConns, or the App draining).
//
// On success the response is 101 (the access log records it), the
// handler timeout no longer applies to the request, and the connection's
// deadlines are cleared. The handler owns the connection until it returns:
// it must read (Conn.Read) for control frames to be answered, and should
// defer conn.CloseNow().
func Accept(c *plinth.Ctx, cfg Config) (*Conn, error) {
	cfg = cfg.withDefaults()
	r := c.Request()
	h := c.Header()
	if r.Method != http.MethodGet {
		h.Set("Allow", http.MethodGet)
		return nil, plinth.Error(http.StatusMethodNotAllowed, "a WebSocket handshake is a GET request")
	}
	if r.ProtoMajor != 1 || r.ProtoMinor < 1 ||
		!hasToken(r.Header["Connection"], "upgrade") || !hasToken(r.Header["Upgrade"], "websocket") {
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", "websocket")
		return nil, plinth.Error(http.StatusUpgradeRequired,
			"this resource is a WebSocket: an HTTP/1.1 request with Connection: Upgrade and Upgrade: websocket is required")
	}
	if v := r.Header.Values("Sec-WebSocket-Version"); len(v) != 1 || strings.TrimSpace(v[0]) != "13" {
		h.Set("Sec-WebSocket-Version", "13")
		return nil, plinth.BadRequest("Sec-WebSocket-Version must be 13")
	}
	if k := r.Header.Values("Sec-WebSocket-Key"); len(k) != 1 || !validKey(k[0]) {
		return nil, plinth.BadRequest("Sec-WebSocket-Key must be given once, 16 bytes in base64")
	}
	if !originAllowed(r, cfg.OriginPatterns) {
		return nil, plinth.Forbidden("cross-origin WebSocket request refused")
	}
	reg := registryOf(c.App())
	if !reg.reserve(cfg.MaxConns) {
		h.Set("Retry-After", strconv.FormatInt(int64((cfg.RetryAfter+time.Second-1)/time.Second), 10))
		if reg.isDraining() {
			return nil, plinth.Error(http.StatusServiceUnavailable, "the server is shutting down")
		}
		return nil, plinth.Error(http.StatusServiceUnavailable, "too many WebSocket connections")
	}
	c.LiftDeadline()
	hw := &hijackWriter{ResponseWriter: c.Writer()}
	wc, err := acceptOffStack(hw, r, &websocket.AcceptOptions{
		Subprotocols:       cfg.Subprotocols,
		InsecureSkipVerify: true, // the origin was checked above
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		reg.unreserve()
		return nil, err
	}
	conn := newConn(wc, hw.conn, reg, cfg, c.Context())
	if !reg.add(conn) { // the drain started between reserve and add
		go conn.goAway()
	}
	return conn, nil
}

// hijackWriter clears the deadlines the server left on the connection
// (header or body read timeouts) when the library hijacks it, and keeps the
// net.Conn.
type hijackWriter struct {
	http.ResponseWriter
	conn net.Conn
}

func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		_ = nc.SetDeadline(time.Time{})
		w.conn = nc
	}
	return nc, brw, err
}

func (w *hijackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hasToken reports whether a comma-separated header holds token, in any case.
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func validKey(k string) bool {
	k = strings.TrimSpace(k)
	if len(k) != 24 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(k)
	return err == nil && len(b) == 16
}

// originAllowed: no Origin (not a browser), the request's own host, or a
// pattern matching the Origin's host.
func originAllowed(r *http.Request, patterns []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	host := strings.ToLower(u.Host)
	for _, p := range patterns {
		if ok, err := path.Match(strings.ToLower(p), host); err == nil && ok {
			return true
		}
	}
	return false
}

// acceptOffStack runs the library's handshake on a short-lived goroutine
// and waits for it. The handshake's call chain is deep; run on the handler's
// goroutine, below Plinth's middleware, it would double that goroutine's
// stack for the whole life of the connection (the GC only halves a stack
// whose use is under a quarter). Measured by bench/realtime/run-ws-idle.sh.
func acceptOffStack(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*websocket.Conn, error) {
	type result struct {
		c   *websocket.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := websocket.Accept(w, r, opts)
		ch <- result{c, err}
	}()
	res := <-ch
	return res.c, res.err
}
