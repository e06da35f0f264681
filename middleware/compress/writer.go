package compress

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"unsafe"

	"github.com/plinth-go/plinth/middleware/compress/internal/httpsyntax"
)

// The states of a writer.
const (
	stateIdle     uint8 = iota // nothing written yet
	stateBuffer                // status known, body buffered until the choice is made
	statePass                  // header sent uncompressed; writes go straight through
	stateCompress              // header sent with Content-Encoding; writes go to the encoder
	stateHijacked              // the connection belongs to the handler
	stateDone                  // finished: the response is complete
)

// maxPooledBuf is the capacity above which a writer drops its buffer
// instead of keeping it in the pool (with a large Config.MinSize).
const maxPooledBuf = 64 << 10

// ErrHijackCompressed is returned by Hijack once the response is being
// compressed: its header has gone out with a Content-Encoding.
var ErrHijackCompressed = errors.New("compress: cannot hijack a response that is being compressed")

// errWriteAfterEnd is returned by writes after the response was finished or
// the connection hijacked.
var errWriteAfterEnd = errors.New("compress: write after the response ended")

// writer is the http.ResponseWriter the middleware gives to inner handlers.
// It holds the status and up to the minimum size of body until it can tell
// whether to compress, then writes the header and either passes the body
// through or feeds it to a pooled encoder that writes to rw. Writers are
// pooled per middleware.
type writer struct {
	m      *middleware
	rw     http.ResponseWriter // the writer it wraps (the Ctx's previous one)
	ctx    context.Context     // the request's
	coder  *coder              // the negotiated coding, nil for none
	enc    encoder             // while compressing
	buf    []byte              // body held in stateBuffer
	status int                 // the status the handler wrote, 0 before
	state  uint8
	allow  bool // the request allows compressing: a coding, no HEAD, no Range
	force  bool // the client forbade identity: compress even small bodies
	sniff  bool // no Content-Type yet: sniff the body, as net/http would
}

// reset prepares a pooled writer for a request.
func (w *writer) reset(rw http.ResponseWriter, r *http.Request) {
	w.rw, w.ctx = rw, r.Context()
	w.status, w.state, w.sniff = 0, stateIdle, false
	w.coder, w.force = nil, false
	if ae := r.Header["Accept-Encoding"]; len(ae) > 0 {
		if i, forbidden := negotiate(ae, w.m.names); i >= 0 {
			w.coder, w.force = w.m.coders[i], forbidden
		}
	}
	w.allow = w.coder != nil && r.Method != http.MethodHead && len(r.Header["Range"]) == 0
	w.buf = w.buf[:0]
}

// clear drops what a pooled writer must not keep alive.
func (w *writer) clear() {
	w.rw, w.ctx, w.coder, w.enc = nil, nil, nil, nil
	if cap(w.buf) > maxPooledBuf {
		w.buf = nil
	}
}

// abandon drops a writer left unfinished by a panic; its encoder, in an
// unknown state, is not pooled again.
func (w *writer) abandon() {
	w.rw, w.ctx, w.coder, w.enc, w.buf = nil, nil, nil, nil, nil
	w.state = stateDone
}

// Header returns the response header of the wrapped writer.
func (w *writer) Header() http.Header { return w.rw.Header() }

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *writer) Unwrap() http.ResponseWriter { return w.rw }

// WriteHeader records the status; the header goes out when the body shows
// whether to compress (at once when a Content-Length or the status decides
// it). Informational (1xx) statuses pass straight through.
func (w *writer) WriteHeader(code int) {
	if w.state != stateIdle {
		if w.state == statePass || w.state == stateCompress {
			w.rw.WriteHeader(code) // net/http reports the superfluous call
		}
		return
	}
	if code < 200 {
		if code == http.StatusSwitchingProtocols {
			w.state = statePass
		}
		w.rw.WriteHeader(code)
		return
	}
	w.status = code
	w.decide()
}

// decide chooses, from the status and the header, between passing the
// response through now, compressing it now, and buffering to find out.
func (w *writer) decide() {
	h := w.rw.Header()
	ct, hasCT := h["Content-Type"]
	switch {
	case !hasCT:
		// net/http would sniff the body; so will this writer, when it
		// may compress.
		w.sniff = true
	case len(ct) > 0 && w.m.allowed(ct[0]):
		w.m.vary.Add(h)
	default:
		w.pass()
		return
	}
	if !w.allow || !compressible(w.status, h) {
		w.pass()
		return
	}
	if cl := h["Content-Length"]; len(cl) == 1 {
		if n, err := strconv.ParseInt(strings.TrimSpace(cl[0]), 10, 64); err == nil {
			switch {
			case n == 0 || n < int64(w.m.minSize) && !w.force:
				w.pass()
				return
			case !w.sniff: // with no type yet, buffer to sniff one
				w.start(true, nil)
				return
			}
		}
	}
	w.state = stateBuffer
}

// compressible reports whether a response with this status and header may
// be compressed, its type aside.
func compressible(status int, h http.Header) bool {
	switch status {
	case http.StatusNoContent, http.StatusPartialContent, http.StatusNotModified:
		return false
	}
	if status < 200 || status > 599 {
		return false
	}
	if v := h["Content-Encoding"]; len(v) > 0 && v[0] != "" {
		return false // already encoded
	}
	if len(h["Content-Range"]) > 0 {
		return false
	}
	for _, v := range h["Cache-Control"] {
		if httpsyntax.ListHas(v, "no-transform") {
			return false
		}
	}
	return true
}

// pass sends the header as it is; the body goes through untouched.
func (w *writer) pass() {
	w.state = statePass
	w.rw.WriteHeader(w.status)
}

// start ends buffering: it sends the header, compressed when compress is
// set and the response qualifies, and then the buffered body. sample is
// the first data to sniff when the buffer is empty.
func (w *writer) start(compress bool, sample []byte) error {
	h := w.rw.Header()
	if w.sniff {
		w.sniff = false
		if len(w.buf) > 0 {
			sample = w.buf
		}
		if len(sample) == 0 {
			compress = false // nothing to sniff: net/http decides
		} else {
			ct := http.DetectContentType(sample)
			h["Content-Type"] = []string{ct}
			if w.m.allowed(ct) {
				w.m.vary.Add(h)
			} else {
				compress = false
			}
		}
	}
	if compress && w.ctx.Err() != nil {
		// The request is over (the handler timeout passed, or the client
		// left): nobody will read an encoded body, so do not start an
		// encoder. (The timeout's own 503 drops Content-Encoding in any
		// case: plinth's problem writer removes it.)
		compress = false
	}
	if !compress {
		w.pass()
		if len(w.buf) > 0 {
			_, err := w.rw.Write(w.buf)
			w.buf = w.buf[:0]
			return err
		}
		return nil
	}
	delete(h, "Content-Length")
	delete(h, "Accept-Ranges")
	h["Content-Encoding"] = w.coder.header
	if et := h["Etag"]; len(et) == 1 && et[0] != "" && !strings.HasPrefix(et[0], "W/") {
		h["Etag"] = []string{"W/" + et[0]}
	}
	w.state = stateCompress
	w.rw.WriteHeader(w.status)
	w.enc = w.coder.get(w.rw)
	if len(w.buf) > 0 {
		_, err := w.enc.Write(w.buf)
		w.buf = w.buf[:0]
		return err
	}
	return nil
}

// shouldCompress reports whether a buffered body of n bytes that is
// complete (or being flushed) is worth compressing.
func (w *writer) shouldCompress(n int) bool {
	return n > 0 && (n >= w.m.minSize || w.force)
}

// Write compresses, buffers or passes b on, as decided.
func (w *writer) Write(b []byte) (int, error) {
	if w.state == stateIdle {
		w.WriteHeader(http.StatusOK)
	}
	switch w.state {
	case stateCompress:
		return w.enc.Write(b)
	case statePass:
		return w.rw.Write(b)
	case stateBuffer:
		if len(w.buf)+len(b) < w.m.minSize || len(b) == 0 {
			if w.buf == nil {
				w.buf = make([]byte, 0, w.m.minSize)
			}
			w.buf = append(w.buf, b...)
			return len(b), nil
		}
		if err := w.start(true, b); err != nil {
			return 0, err
		}
		return w.Write(b)
	}
	return 0, errWriteAfterEnd
}

// WriteString is Write for a string, without copying it.
func (w *writer) WriteString(s string) (int, error) {
	if w.state == statePass {
		return io.WriteString(w.rw, s)
	}
	// The encoders, like every io.Writer, neither keep nor modify b.
	return w.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// ReadFrom copies src to the response; an uncompressed response keeps the
// wrapped writer's ReadFrom (sendfile).
func (w *writer) ReadFrom(src io.Reader) (int64, error) {
	if w.state == stateIdle {
		w.WriteHeader(http.StatusOK)
	}
	if w.state == statePass {
		if rf, ok := w.rw.(io.ReaderFrom); ok {
			return rf.ReadFrom(src)
		}
		return io.Copy(writerOnly{w.rw}, src)
	}
	bp := w.m.copyBufs.Get().(*[]byte)
	n, err := io.CopyBuffer(writerOnly{w}, readerOnly{src}, *bp)
	w.m.copyBufs.Put(bp)
	return n, err
}

// writerOnly hides ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

// readerOnly hides WriteTo (an *os.File's, say, which would fall back to a
// buffer of its own) so that io.CopyBuffer uses the pooled one.
type readerOnly struct{ io.Reader }

// Flush sends what the handler wrote so far to the client: a buffered
// response is started (compressed when its type allows, since a handler
// that flushes is streaming), the encoder is flushed, then the wrapped
// writer.
func (w *writer) Flush() { _ = w.FlushError() }

// FlushError is Flush returning the error, for http.ResponseController.
func (w *writer) FlushError() error {
	if w.state == stateIdle {
		w.WriteHeader(http.StatusOK)
	}
	switch w.state {
	case stateBuffer:
		if err := w.start(true, nil); err != nil {
			return err
		}
	case stateHijacked, stateDone:
		return errWriteAfterEnd
	}
	if w.state == stateCompress {
		if err := w.enc.Flush(); err != nil {
			return err
		}
	}
	if f, ok := w.rw.(http.Flusher); ok {
		f.Flush()
		return nil
	}
	return http.NewResponseController(w.rw).Flush()
}

// Hijack hands the connection over, through the wrapped writer, unless the
// response is already being compressed (ErrHijackCompressed). A buffered
// body is sent first, uncompressed.
func (w *writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.state == stateCompress {
		return nil, nil, ErrHijackCompressed
	}
	if w.state == stateBuffer {
		if err := w.start(false, nil); err != nil {
			return nil, nil, err
		}
	}
	conn, brw, err := http.NewResponseController(w.rw).Hijack()
	if err == nil {
		w.state = stateHijacked
	}
	return conn, brw, err
}

// commit sends a buffered response, compressed if it qualifies, without
// ending it.
func (w *writer) commit() error {
	if w.state != stateBuffer {
		return nil
	}
	return w.start(w.shouldCompress(len(w.buf)), nil)
}

// finish completes the response: a buffered body is sent, the encoder is
// closed (writing the coding's trailer) and returned to its pool.
func (w *writer) finish() error {
	err := w.commit()
	if w.state == stateCompress {
		if cerr := w.enc.Close(); err == nil {
			err = cerr
		}
		w.coder.put(w.enc)
		w.enc = nil
	}
	w.state = stateDone
	return err
}
