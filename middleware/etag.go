package middleware

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/plinth-go/plinth"
)

// DefaultETagMaxBody is the largest response body, in bytes, that ETag
// buffers to compute a tag when ETagConfig.MaxBody is 0: 1 MiB. Larger
// responses are streamed untagged.
const DefaultETagMaxBody = 1 << 20

// ETagConfig configures ETag. Its zero value is the default: strong tags on
// bodies up to DefaultETagMaxBody (1 MiB).
type ETagConfig struct {
	// MaxBody is the largest body, in bytes, that ETag buffers to tag it.
	// A response that grows past it is sent as it comes, without an ETag,
	// so memory per request stays bounded. 0 or less means
	// DefaultETagMaxBody (1 MiB).
	MaxBody int

	// Weak makes ETag send weak validators (W/"...") instead of strong
	// ones. Use it when the handler's output may differ in bytes while
	// meaning the same (for example a map encoded in random order). Default
	// false: strong validators, since the tag is a hash of the exact bytes
	// sent.
	Weak bool
}

// ETag returns native middleware that gives dynamic GET and HEAD responses an
// entity tag and answers conditional requests against it. The zero
// ETagConfig is the default; no configuration is invalid.
//
// For a GET or HEAD request, the response body is held in a pooled buffer
// until the handler returns. If the status is 200 and the handler set no
// ETag, the tag is computed from the body: a strong validator by default
// (ETagConfig.Weak for weak), made of two hardware-accelerated CRC-32s of the
// body (Castagnoli and IEEE; together a 64-bit cyclic code, several times
// faster than the standard library's CRC-64 or FNV-1a; hash/maphash is
// faster still but seeded per process, which would give every replica and
// restart different tags). The response then carries
// the ETag and a Content-Length. A request whose If-None-Match (a list, or
// "*") matches the tag by weak comparison (RFC 9110 §13.1.2) gets 304 Not
// Modified with no body, keeping the headers a 200 would have had except
// Content-Type, Content-Length and Content-Encoding (RFC 9110 §15.4.5); one
// whose If-Match does not match by strong comparison gets 412. If-None-Match
// takes precedence over If-Modified-Since, which ETag does not evaluate.
//
// Responses that already carry an ETag are passed on without buffering, but
// their conditional headers are still answered. Responses with another
// status than 200, responses longer than the maximum body
// (ETagConfig.MaxBody, 1 MiB by default) and responses the handler flushes
// (streaming) are passed through untagged, as they come, as are event
// streams (Content-Type text/event-stream, plinth's Ctx.SSE) from their
// first byte. Other methods are not touched: preconditions of
// unsafe methods (If-Match on PUT or DELETE) belong to the handler, which
// knows the resource's current tag before changing it.
//
// With compression, install ETag inside the compressor (compress outermost,
// ETag closer to the handler): the tag then describes the identity bytes, and
// the compress middleware weakens a strong tag (W/) when it encodes the
// response, since the encoded bytes differ. A returned error is rendered
// through the App's renderer inside the buffer, so problem responses pass
// through with their status.
//
// Cost: the body is hashed once, in time linear in its length, which is
// almost all of the middleware's time; a tagged 200 costs 4 allocations
// (the tag and Content-Length values and their header slices) and a 304 2
// (the tag), and the wrapper and its buffer are pooled
// (TestETagAllocations). Measured figures, with the command that produces
// them: docs/middleware.md, "ETag".
func ETag(cfg ETagConfig) plinth.Middleware {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultETagMaxBody
	}
	pool := &sync.Pool{New: func() any { return new(etagWriter) }}
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			r := c.Request()
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				return next(c)
			}
			prev := c.Writer()
			w := pool.Get().(*etagWriter)
			w.reset(prev, r, &cfg)
			c.SetWriter(w)
			done := false
			defer func() {
				if !done {
					// next panicked: drop what is held and give the real
					// writer back, for the recovery layer's 500.
					c.SetWriter(prev)
				}
			}()
			err := next(c)
			if err != nil {
				if w.mode == etagBuffer && w.status != 0 {
					// The handler started a response and then failed: send
					// what it wrote, as it would have gone without this
					// middleware, and let WriteError log the error.
					w.commit()
				}
				c.WriteError(err)
			}
			w.finish()
			done = true
			c.SetWriter(prev)
			w.release()
			pool.Put(w)
			return nil
		}
	}
}

// The states of an etagWriter.
const (
	etagBuffer  = iota // holding the body to tag it
	etagPass           // writing through
	etagDiscard        // a 304 or 412 was sent: drop the body
)

// maxPooledETagBuffer is the capacity above which a buffer is dropped
// rather than kept in the pool.
const maxPooledETagBuffer = 64 << 10

// etagWriter buffers a 200 response to tag it.
type etagWriter struct {
	w      http.ResponseWriter
	r      *http.Request
	cfg    *ETagConfig
	mode   int
	status int // status the handler asked for, 0 before
	buf    bytes.Buffer
}

func (w *etagWriter) reset(rw http.ResponseWriter, r *http.Request, cfg *ETagConfig) {
	w.w, w.r, w.cfg, w.mode, w.status = rw, r, cfg, etagBuffer, 0
	w.buf.Reset()
}

func (w *etagWriter) release() {
	w.w, w.r, w.cfg = nil, nil, nil
	if w.buf.Cap() > maxPooledETagBuffer {
		w.buf = bytes.Buffer{}
	}
}

func (w *etagWriter) Header() http.Header { return w.w.Header() }

// Unwrap serves http.ResponseController (deadlines, Hijack). Flush is
// implemented here, so the controller flushes through this writer.
func (w *etagWriter) Unwrap() http.ResponseWriter { return w.w }

func (w *etagWriter) WriteHeader(code int) {
	if w.mode != etagBuffer {
		if w.mode == etagPass {
			w.w.WriteHeader(code)
		}
		return
	}
	if w.status != 0 {
		return // superfluous, as net/http would ignore it
	}
	if code < 200 {
		w.w.WriteHeader(code) // 1xx: informational, sent at once
		return
	}
	w.status = code
	if code != http.StatusOK {
		w.mode = etagPass
		w.w.WriteHeader(code)
		return
	}
	if ct := w.w.Header()["Content-Type"]; len(ct) > 0 && strings.HasPrefix(ct[0], "text/event-stream") {
		// An event stream (plinth's Ctx.SSE) never ends as a body to tag:
		// it passes through from its first byte, flushed per event.
		w.mode = etagPass
		w.w.WriteHeader(code)
		return
	}
	if tag := w.w.Header().Get("Etag"); tag != "" {
		// The handler chose its own tag: answer the conditionals against it
		// and otherwise stay out of the way.
		if st := etagPrecondition(w.r, tag); st != 0 {
			w.notModified(st)
			return
		}
		w.mode = etagPass
		w.w.WriteHeader(code)
	}
}

func (w *etagWriter) Write(b []byte) (int, error) {
	switch w.mode {
	case etagPass:
		return w.w.Write(b)
	case etagDiscard:
		return len(b), nil
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
		if w.mode != etagBuffer {
			return w.Write(b)
		}
	}
	if w.buf.Len()+len(b) > w.cfg.MaxBody {
		w.commit()
		return w.w.Write(b)
	}
	return w.buf.Write(b)
}

func (w *etagWriter) WriteString(s string) (int, error) {
	switch w.mode {
	case etagPass:
		return io.WriteString(w.w, s)
	case etagDiscard:
		return len(s), nil
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
		if w.mode != etagBuffer {
			return w.WriteString(s)
		}
	}
	if w.buf.Len()+len(s) > w.cfg.MaxBody {
		w.commit()
		return io.WriteString(w.w, s)
	}
	return w.buf.WriteString(s)
}

// ReadFrom takes the body from src: into the buffer while the response is
// held, else through the underlying writer's ReadFrom (the server's
// sendfile path, for a file behind a handler-set ETag).
func (w *etagWriter) ReadFrom(src io.Reader) (int64, error) {
	if w.mode == etagBuffer && w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	switch w.mode {
	case etagPass:
		if rf, ok := w.w.(io.ReaderFrom); ok {
			return rf.ReadFrom(src)
		}
		return io.Copy(etagWriterOnly{w.w}, src)
	case etagDiscard:
		return io.Copy(io.Discard, src)
	}
	// Read one byte past the limit to learn whether the body fits.
	room := int64(w.cfg.MaxBody - w.buf.Len())
	n, err := w.buf.ReadFrom(io.LimitReader(src, room+1))
	if err != nil || n <= room {
		return n, err
	}
	w.commit()
	m, err := w.ReadFrom(src)
	return n + m, err
}

// etagWriterOnly hides a writer's ReadFrom from io.Copy.
type etagWriterOnly struct{ io.Writer }

// Hijack hands the connection over (a WebSocket upgrade on a GET route):
// nothing is held or added afterwards.
func (w *etagWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.w).Hijack()
	if err == nil {
		w.mode = etagPass
		w.buf.Reset()
	}
	return conn, brw, err
}

// Flush means the handler streams: send what is held, untagged, and write
// through from now on.
func (w *etagWriter) Flush() {
	switch w.mode {
	case etagDiscard:
		return
	case etagBuffer:
		if w.status == 0 {
			w.WriteHeader(http.StatusOK)
		}
		if w.mode == etagBuffer {
			w.commit()
		}
	}
	if f, ok := w.w.(http.Flusher); ok {
		f.Flush()
		return
	}
	_ = http.NewResponseController(w.w).Flush()
}

// commit sends the held status and body untagged and switches to
// pass-through.
func (w *etagWriter) commit() {
	w.mode = etagPass
	w.w.WriteHeader(w.status)
	if w.buf.Len() > 0 {
		_, _ = w.w.Write(w.buf.Bytes())
		w.buf.Reset()
	}
}

// finish ends a buffered response: tag it, then answer 304 or 412 or send
// it.
func (w *etagWriter) finish() {
	if w.mode != etagBuffer || w.status == 0 {
		return // written through, answered, or nothing written at all
	}
	body := w.buf.Bytes()
	h := w.w.Header()
	if w.r.Method == http.MethodHead && len(body) == 0 {
		// A HEAD handler that writes no body: its GET twin's tag is unknown.
		w.commit()
		return
	}
	var raw [20]byte
	tag := string(appendETag(raw[:0], body, w.cfg.Weak))
	st := etagPrecondition(w.r, tag)
	h["Etag"] = []string{tag}
	if st != 0 {
		w.notModified(st)
		return
	}
	if _, ok := h["Content-Length"]; !ok {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.commit()
}

// notModified sends st (304 or 412) with no body.
func (w *etagWriter) notModified(st int) {
	h := w.w.Header()
	if st == http.StatusNotModified {
		delete(h, "Content-Type")
		delete(h, "Content-Length")
		delete(h, "Content-Encoding")
	} else {
		delete(h, "Content-Length")
	}
	w.mode = etagDiscard
	w.buf.Reset()
	w.w.WriteHeader(st)
}

var (
	etagCastagnoli = crc32.MakeTable(crc32.Castagnoli)
	etagIEEE       = crc32.IEEETable
)

// appendETag appends the quoted tag of body to b: W/ if weak, then 16 hex
// digits of the Castagnoli and IEEE CRC-32s of body.
func appendETag(b, body []byte, weak bool) []byte {
	const hex = "0123456789abcdef"
	sum := uint64(crc32.Checksum(body, etagCastagnoli))<<32 | uint64(crc32.Checksum(body, etagIEEE))
	if weak {
		b = append(b, 'W', '/')
	}
	b = append(b, '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hex[(sum>>uint(i))&0xf])
	}
	return append(b, '"')
}

// etagPrecondition evaluates If-Match (strong comparison) and then
// If-None-Match (weak comparison) of a GET or HEAD request against the
// current tag of the selected representation, in the order of RFC 9110
// §13.2.2: 412 if If-Match fails, 304 if If-None-Match matches, else 0.
func etagPrecondition(r *http.Request, tag string) int {
	if im, ok := r.Header["If-Match"]; ok && !etagMatch(im, tag, false) {
		return http.StatusPreconditionFailed
	}
	if inm, ok := r.Header["If-None-Match"]; ok && etagMatch(inm, tag, true) {
		return http.StatusNotModified
	}
	return 0
}

// etagMatch reports whether any entity tag in the field values vals matches
// tag; "*" matches any current representation. With weak comparison the W/
// prefixes are ignored; with strong comparison a weak tag on either side
// never matches (RFC 9110 §8.8.3.2). Malformed members are skipped.
func etagMatch(vals []string, tag string, weak bool) bool {
	opaque, tagWeak := strings.CutPrefix(tag, "W/")
	for _, v := range vals {
		for {
			v = strings.TrimLeft(v, " \t,")
			if v == "" {
				break
			}
			if v[0] == '*' {
				return true
			}
			w := false
			if strings.HasPrefix(v, "W/") {
				w, v = true, v[2:]
			}
			if v == "" || v[0] != '"' {
				// Malformed: skip to the next member.
				i := strings.IndexByte(v, ',')
				if i < 0 {
					break
				}
				v = v[i+1:]
				continue
			}
			end := strings.IndexByte(v[1:], '"')
			if end < 0 {
				break
			}
			cand := v[:end+2]
			v = v[end+2:]
			if !weak && (w || tagWeak) {
				continue
			}
			if cand == opaque {
				return true
			}
		}
	}
	return false
}
