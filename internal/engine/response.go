package engine

import (
	"bufio"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/plinth-go/plinth/internal/httpsyntax"
	"golang.org/x/net/http/httpguts"
)

// bodyBufferSize is how much of a body is kept before the head is written:
// a body that fits gets a Content-Length, a longer one is sent chunked.
const bodyBufferSize = 4 << 10

// response is the http.ResponseWriter of a connection, reused for each of
// its requests. It also implements http.Flusher, http.Hijacker, and the
// methods http.ResponseController looks for (FlushError, SetReadDeadline,
// SetWriteDeadline, EnableFullDuplex).
type response struct {
	c             *conn
	req           *http.Request
	hdr           http.Header
	buf           []byte // the body, until the head is written
	status        int
	wroteHeader   bool // a final status was given
	committed     bool // the head is in c.out
	chunking      bool
	noBody        bool // HEAD, 1xx, 204, 304: bytes are counted, not sent
	contentLength int64
	written       int64
	handlerDone   bool
	fullDuplex    bool
	block         []byte   // pre-rendered header lines, see SetHeaderBlock
	blockNames    []string // their names
	blockLens     uint64   // the set of their lengths (bit n: a name of n bytes, mod 64)
	lensFor       *string  // the names blockLens was made for (&blockNames[0])
	trailers      []string
	kvs           []headerField // commit's scratch
}

// reset prepares w for the next request. Field by field rather than as a
// composite literal (which writes the whole struct): the per-request
// fields only; c, hdr (emptied), the buffers' arrays and blockLens/lensFor
// are kept. TestResponseResetFields fails when a field is added and not
// named here.
func (w *response) reset(req *http.Request) {
	clear(w.hdr)
	w.req = req
	if w.buf == nil {
		w.buf = make([]byte, 0, bodyBufferSize)
	}
	w.buf, w.kvs, w.trailers = w.buf[:0], w.kvs[:0], w.trailers[:0]
	w.status, w.contentLength, w.written = 0, -1, 0
	w.wroteHeader, w.committed, w.chunking, w.noBody, w.handlerDone, w.fullDuplex = false, false, false, false, false, false
	w.block, w.blockNames = nil, nil
}

// idle drops what the writer holds of the last response before its
// connection waits (see conn.idle): the header map is emptied, or replaced
// when a handler grew it past a small one's size, and the scratch lists
// are emptied (their strings and slices are the handler's), or dropped when
// they grew.
func (w *response) idle() {
	w.req = nil
	w.block, w.blockNames = nil, nil
	if len(w.hdr) > maxIdleHeader {
		w.hdr = make(http.Header)
	} else {
		clear(w.hdr)
	}
	clear(w.kvs)
	clear(w.trailers)
	w.kvs, w.trailers = w.kvs[:0], w.trailers[:0]
	if cap(w.kvs) > maxIdleKeys {
		w.kvs = nil
	}
	if cap(w.trailers) > maxIdleKeys {
		w.trailers = nil
	}
}

// maxIdleHeader is the most fields a response header map may have had for
// an idle connection to keep it (emptied) rather than make a new one: a map
// does not shrink when emptied.
const maxIdleHeader = 16

// Header returns the response header map (reused across requests).
func (w *response) Header() http.Header { return w.hdr }

// SetHeaderBlock hands the writer header lines rendered once, at startup:
// block is "Name: value\r\n" lines, names their canonical names in order.
// They are written after the handler's headers, except those whose name the
// handler set itself (its value wins). The block must not change while the
// response is being written. This is how Plinth's default layer sends its
// security headers for the cost of one copy.
func (w *response) SetHeaderBlock(block []byte, names []string) {
	w.block, w.blockNames = block, names
	if len(names) > 0 && &names[0] != w.lensFor {
		// A block other than the previous response's (the same one is
		// usually handed again): its names' lengths, for appendBlock.
		var lens uint64
		for _, n := range names {
			lens |= 1 << (len(n) & 63)
		}
		w.blockLens, w.lensFor = lens, &names[0]
	}
}

// WriteHeader sends the status (1xx informational ones at once, the final
// one with the first body bytes or at the end of the handler).
func (w *response) WriteHeader(code int) {
	if w.c.hijacked {
		w.c.srv.cfg.ErrorLog.Printf("engine: response.WriteHeader on hijacked connection")
		return
	}
	if w.wroteHeader {
		return
	}
	if code < 100 || code > 999 {
		panic("invalid WriteHeader code " + strconv.Itoa(code))
	}
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		w.writeInformational(code)
		return
	}
	w.wroteHeader = true
	w.status = code
	// The header is read now, as net/http takes its copy here: the fields
	// commit writes, and the Content-Length that Write holds the body to.
	kvs := w.headerFields()
	for i, kv := range kvs {
		if kv.k != "Content-Length" {
			continue
		}
		if cl := kv.v; len(cl) > 0 && cl[0] != "" {
			v, err := strconv.ParseInt(cl[0], 10, 64)
			if err == nil && v >= 0 {
				w.contentLength = v
			} else {
				w.c.srv.cfg.ErrorLog.Printf("engine: invalid Content-Length of %q", cl[0])
				delete(w.hdr, "Content-Length")
				w.kvs = append(kvs[:i], kvs[i+1:]...)
			}
		}
		break
	}
}

func (w *response) writeInformational(code int) {
	if w.committed {
		return
	}
	if code == http.StatusContinue {
		if !w.c.body.expect {
			return
		}
		w.c.body.expect = false
	}
	c := w.c
	c.out = appendStatusLine(c.out, w.req.ProtoAtLeast(1, 1), code)
	c.out = appendHeader(c.out, w.hdr, nil)
	c.out = append(c.out, "\r\n"...)
	c.flush()
}

// Write buffers p; past the buffer, the head goes out and the body is sent
// chunked (HTTP/1.1) or until close (HTTP/1.0).
func (w *response) Write(p []byte) (int, error) {
	return w.write(len(p), p, "")
}

// WriteString is Write for a string, without a copy.
func (w *response) WriteString(s string) (int, error) {
	return w.write(len(s), nil, s)
}

func (w *response) write(n int, p []byte, s string) (int, error) {
	c := w.c
	if c.hijacked {
		return 0, http.ErrHijacked
	}
	if c.werr != nil {
		return 0, c.werr // the client is gone: as net/http, every later Write fails
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if n == 0 {
		return 0, nil
	}
	if !bodyAllowedForStatus(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	w.written += int64(n)
	if w.contentLength != -1 && w.written > w.contentLength {
		return 0, http.ErrContentLength
	}
	if !w.committed {
		if len(w.buf)+n <= bodyBufferSize {
			if p != nil {
				w.buf = append(w.buf, p...)
			} else {
				w.buf = append(w.buf, s...)
			}
			return n, nil
		}
		w.commit()
	}
	if w.noBody {
		return n, nil
	}
	if w.chunking {
		c.out = strconv.AppendInt(c.out, int64(n), 16)
		c.out = append(c.out, "\r\n"...)
	}
	switch {
	case n > maxIdleOut:
		// A large write goes to the connection itself, after what is
		// pending: through c.out it would grow that buffer to its size.
		if !c.flush() {
			return 0, c.werr
		}
		if p == nil {
			p = unsafe.Slice(unsafe.StringData(s), len(s))
		}
		if _, err := c.nc.Write(p); err != nil {
			c.werr = err
			c.broken()
			return 0, err
		}
	case p != nil:
		c.out = append(c.out, p...)
	default:
		c.out = append(c.out, s...)
	}
	if w.chunking {
		c.out = append(c.out, "\r\n"...)
	}
	if len(c.out) >= bodyBufferSize {
		if !c.flush() {
			return n, c.werr
		}
	}
	return n, nil
}

// commit writes the head, with what is buffered of the body, to c.out. The
// handler's header, as WriteHeader read it, is gone through in one pass; the fields the server decides
// (Content-Length, Transfer-Encoding, Connection) are skipped rather than
// deleted, so the handler's map is left as it was, as on net/http.
func (w *response) commit() {
	if w.committed {
		return
	}
	w.committed = true
	c, req, h := w.c, w.req, w.hdr
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	code := w.status
	is11 := req.ProtoMajor > 1 || req.ProtoMajor == 1 && req.ProtoMinor >= 1
	isHEAD := req.Method == "HEAD"
	p := w.buf
	keepAlives := !c.srv.shutting.Load()
	bodyAllowed := bodyAllowedForStatus(code)

	var te, conn, ce, upgrade string
	var haveCL, haveConn, haveType, haveDate, declared, trailers bool
	kvs := w.kvs // read by WriteHeader
	for _, kv := range kvs {
		k, vv := kv.k, kv.v
		switch k {
		case "Transfer-Encoding":
			te = first(vv)
		case "Content-Length":
			haveCL = true
		case "Connection":
			haveConn, conn = true, first(vv)
		case "Content-Encoding":
			ce = first(vv)
		case "Content-Type":
			haveType = true
		case "Date":
			haveDate = true
		case "Trailer":
			declared, trailers = true, true
		case "Upgrade":
			upgrade = first(vv)
		default:
			if len(k) > len(http.TrailerPrefix) && k[:len(http.TrailerPrefix)] == http.TrailerPrefix {
				trailers = true
			}
		}
	}
	w.kvs = kvs
	hasTE := te != ""

	var setCL int64 = -1
	if w.handlerDone && !trailers && !hasTE && bodyAllowed && !haveCL && (!isHEAD || len(p) > 0) {
		w.contentLength = int64(len(p))
		setCL = w.contentLength
	}
	var reqConn string
	if v := req.Header["Connection"]; len(v) > 0 {
		reqConn = v[0]
	}
	wants10KeepAlive := req.ProtoMajor == 1 && req.ProtoMinor == 0 && reqConn != "" && hasToken(reqConn, "keep-alive")
	wantsClose := req.Close || reqConn != "" && hasToken(reqConn, "close")
	closeAfter := c.closeAfter
	setKeepAlive := false
	hasCL := w.contentLength != -1
	if wants10KeepAlive && (isHEAD || hasCL || !bodyAllowed) {
		setKeepAlive = !haveConn
	} else if !is11 || wantsClose {
		closeAfter = true
	}
	if conn == "close" || !keepAlives {
		closeAfter = true
	}
	if req.ContentLength != 0 {
		// The handler may read its body on another goroutine: the
		// discard below takes the body's lock, as its reads do.
		c.ex.body.mu.Lock()
		defer c.ex.body.mu.Unlock()
		b := &c.body
		if b.ecr && !b.readEOF {
			closeAfter = true // as net/http: an expect-continue body not read to its end
		}
		if !closeAfter && !w.fullDuplex && b.unread() {
			if keep, tooBig := b.discardForResponse(); !keep {
				closeAfter = true
				c.linger = tooBig
			}
		}
		if b.err != nil {
			closeAfter = true
		}
	}
	var skip skipMask
	ctype := ""
	if bodyAllowed {
		if ce == "" && !haveType && !hasTE && len(p) > 0 {
			ctype = http.DetectContentType(p)
		}
	} else {
		skip |= skipCL | skipTE
		if code == http.StatusNotModified {
			skip |= skipCT
		}
	}
	if hasCL && hasTE && te != "identity" {
		skip |= skipCL
		hasCL = false
	}
	w.noBody = isHEAD || !bodyAllowed
	switch {
	case isHEAD || !bodyAllowed || code == http.StatusNoContent, hasCL:
		skip |= skipTE
	case is11:
		skip |= skipTE
		if hasTE && te == "identity" {
			closeAfter = true
		} else {
			w.chunking = true
		}
	default:
		closeAfter = true
		skip |= skipTE
	}
	if w.chunking {
		skip |= skipCL
		setCL = -1
	}
	connClose := hasToken(conn, "close")
	if closeAfter && (!keepAlives || !connClose) && !(code == http.StatusSwitchingProtocols && upgrade != "") {
		skip |= skipConn
		setKeepAlive = false
		connClose = false
	}
	c.closeAfter = closeAfter
	if declared {
		for _, v := range h["Trailer"] {
			for f := range strings.SplitSeq(v, ",") {
				// As net/http's declareTrailer, and its Header.Write after
				// it: a name that is not a token, or one a trailer must not
				// carry (Content-Length, Host, ...), is not declared.
				if f = textTrim(f); f != "" {
					if k := http.CanonicalHeaderKey(f); httpsyntax.IsToken(k) && httpguts.ValidTrailerHeader(k) {
						w.trailers = append(w.trailers, k)
					}
				}
			}
		}
	}

	out := appendStatusLine(c.out, is11, code)
	for _, kv := range kvs {
		if skip != 0 {
			switch {
			case skip&skipCL != 0 && kv.k == "Content-Length",
				skip&skipTE != 0 && kv.k == "Transfer-Encoding",
				skip&skipConn != 0 && kv.k == "Connection",
				skip&skipCT != 0 && kv.k == "Content-Type":
				continue
			}
		}
		if !kv.tok {
			continue // also drops "Trailer:"-prefixed names: sent as trailers
		}
		for _, v := range kv.v {
			out = appendField(out, kv.k, v)
		}
	}
	if ctype != "" {
		out = append(out, "Content-Type: "...)
		out = append(out, ctype...)
		out = append(out, "\r\n"...)
	}
	if setCL >= 0 {
		out = append(out, "Content-Length: "...)
		out = strconv.AppendInt(out, setCL, 10)
		out = append(out, "\r\n"...)
	}
	if w.chunking {
		out = append(out, "Transfer-Encoding: chunked\r\n"...)
	}
	if !haveDate {
		out = append(out, *dateLine.Load()...)
	}
	switch {
	case closeAfter && is11 && !connClose:
		out = append(out, "Connection: close\r\n"...)
	case setKeepAlive:
		out = append(out, "Connection: keep-alive\r\n"...)
	}
	if len(w.block) > 0 {
		out = appendBlock(out, w.block, w.blockNames, w.blockLens, kvs)
	}
	out = append(out, "\r\n"...)
	if len(p) > 0 && !w.noBody {
		if w.chunking {
			out = strconv.AppendInt(out, int64(len(p)), 16)
			out = append(out, "\r\n"...)
			out = append(out, p...)
			out = append(out, "\r\n"...)
		} else {
			out = append(out, p...)
		}
	}
	c.out = out
	w.buf = w.buf[:0]
}

// headerFields returns the handler's header as a list. Starting a map
// iteration is the dearest part of writing a small header (its random
// start), and a connection's responses mostly carry the same names: when
// the header has exactly the previous response's names, they are looked up
// instead (a small map's lookup does not hash), and whether each is a token
// is known from then (the names are the same strings).
func (w *response) headerFields() []headerField {
	h, kvs, last := w.hdr, w.kvs[:0], w.c.lastKeys
	if len(h) == len(last) {
		for _, n := range last {
			vv, ok := h[n.k]
			if !ok {
				kvs = kvs[:0]
				break
			}
			kvs = append(kvs, headerField{n.k, vv, n.tok})
		}
		if len(kvs) == len(h) {
			w.kvs = kvs
			return kvs
		}
	}
	last = last[:0]
	for k, vv := range h {
		tok := httpsyntax.IsToken(k)
		kvs = append(kvs, headerField{k, vv, tok})
		last = append(last, hdrKey{k, tok})
	}
	w.c.lastKeys = last
	w.kvs = kvs
	return kvs
}

// headerField is one field of the handler's header, as commit reads it.
type headerField struct {
	k   string
	v   []string
	tok bool // k is a token (httpsyntax.IsToken): a name that can be sent
}

// hdrKey is a name of the previous response's header and whether it
// is a token.
type hdrKey struct {
	k   string
	tok bool
}

type skipMask uint8

const (
	skipCL skipMask = 1 << iota
	skipTE
	skipConn
	skipCT
)

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func textTrim(s string) string { return textproto.TrimString(s) }

// appendBlock appends the block's lines whose name the handler did not set
// (kvs is the handler's header; both are short, so no map is consulted).
//
// lens is the set of the names' lengths (bit n for n bytes, mod 64): most of
// the handler's names (Content-Type, X-Request-Id) have a length no block
// name has, and are told apart without a comparison.
func appendBlock(out, block []byte, names []string, lens uint64, kvs []headerField) []byte {
	clash := false
	for _, kv := range kvs {
		if lens&(1<<(len(kv.k)&63)) == 0 {
			continue
		}
		for _, n := range names {
			if n == kv.k {
				clash = true
				break
			}
		}
	}
	if !clash {
		return append(out, block...)
	}
	i := 0
	for _, n := range names {
		j := i
		for j < len(block) && block[j] != '\n' {
			j++
		}
		set := false
		for _, kv := range kvs {
			if kv.k == n {
				set = true
				break
			}
		}
		if !set {
			out = append(out, block[i:j+1]...)
		}
		i = j + 1
	}
	return out
}

// finish ends the response after the handler returned.
func (w *response) finish() {
	c := w.c
	w.handlerDone = true
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !w.committed {
		w.commit()
	}
	if w.chunking {
		c.out = append(c.out, "0\r\n"...)
		c.out = w.appendTrailers(c.out)
		c.out = append(c.out, "\r\n"...)
	}
	if w.req.Method != "HEAD" && w.contentLength != -1 && bodyAllowedForStatus(w.status) && w.contentLength != w.written {
		c.closeAfter = true // the client cannot tell where this response ends
	}
}

func (w *response) appendTrailers(out []byte) []byte {
	h := w.hdr
	for _, k := range w.trailers {
		for _, v := range h[k] {
			out = appendField(out, k, v)
		}
	}
	for k, vv := range h {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok && httpsyntax.IsToken(name) {
			for _, v := range vv {
				out = appendField(out, name, v)
			}
		}
	}
	return out
}

// abortTo500 answers a panic that happened before anything was written.
func (w *response) abortTo500() {
	clear(w.hdr)
	w.buf = w.buf[:0]
	w.written = 0
	w.wroteHeader = false
	w.contentLength = -1
	w.block = nil
	w.hdr["Content-Type"] = []string{"text/plain; charset=utf-8"}
	w.hdr["Connection"] = []string{"close"}
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.WriteString("Internal Server Error\n")
	w.finish()
}

// Flush sends the head and what is buffered now.
func (w *response) Flush() { _ = w.FlushError() }

// FlushError is Flush, returning the write error (http.ResponseController).
func (w *response) FlushError() error {
	if w.c.hijacked {
		return http.ErrHijacked
	}
	if !w.committed {
		w.commit()
	}
	if !w.c.flush() {
		return w.c.werr
	}
	return nil
}

// Hijack hands the connection to the handler; see http.Hijacker.
func (w *response) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return w.c.hijack()
}

// SetReadDeadline sets the connection's read deadline (http.ResponseController).
func (w *response) SetReadDeadline(t time.Time) error {
	w.c.rdl = t
	return w.c.nc.SetReadDeadline(t)
}

// SetWriteDeadline sets the connection's write deadline, until the end of
// the request (http.ResponseController).
func (w *response) SetWriteDeadline(t time.Time) error {
	w.c.wdl = true
	return w.c.nc.SetWriteDeadline(t)
}

// EnableFullDuplex lets the handler read the body after it started writing
// (http.ResponseController); the engine allows it always, this only stops
// the discard of the unread body when the head is written.
func (w *response) EnableFullDuplex() error {
	w.fullDuplex = true
	return nil
}

func bodyAllowedForStatus(status int) bool {
	switch {
	case status >= 100 && status <= 199:
		return false
	case status == 204, status == 304:
		return false
	}
	return true
}

var statusLines11, statusLines10 [600]string

func init() {
	for code := 100; code < 600; code++ {
		text := http.StatusText(code)
		if text == "" {
			text = "status code " + strconv.Itoa(code)
		}
		statusLines11[code] = "HTTP/1.1 " + strconv.Itoa(code) + " " + text + "\r\n"
		statusLines10[code] = "HTTP/1.0 " + strconv.Itoa(code) + " " + text + "\r\n"
	}
}

func appendStatusLine(out []byte, is11 bool, code int) []byte {
	if code < 600 {
		if is11 {
			return append(out, statusLines11[code]...)
		}
		return append(out, statusLines10[code]...)
	}
	if is11 {
		out = append(out, "HTTP/1.1 "...)
	} else {
		out = append(out, "HTTP/1.0 "...)
	}
	out = strconv.AppendInt(out, int64(code), 10)
	out = append(out, " status code "...)
	out = strconv.AppendInt(out, int64(code), 10)
	return append(out, "\r\n"...)
}

// appendHeader writes h as net/http does: names that are not tokens are
// dropped, CR and LF in values become spaces, values are trimmed; trailer
// declarations by prefix are not sent.
func appendHeader(out []byte, h http.Header, _ []string) []byte {
	for k, vv := range h {
		if !httpsyntax.IsToken(k) {
			continue
		}
		if strings.HasPrefix(k, http.TrailerPrefix) {
			continue
		}
		for _, v := range vv {
			out = appendField(out, k, v)
		}
	}
	return out
}

func appendField(out []byte, k, v string) []byte {
	out = append(out, k...)
	out = append(out, ": "...)
	if n := len(v); n > 0 && v[0] > ' ' && v[n-1] > ' ' && !hasControl(v) {
		// Nothing to trim, no CR or LF: the usual value, checked eight
		// bytes at a time.
		out = append(out, v...)
		return append(out, "\r\n"...)
	}
	if n := len(v); n > 0 && (v[0] <= ' ' || v[n-1] <= ' ') {
		v = textTrim(v)
	}
	if strings.IndexByte(v, '\n') < 0 && strings.IndexByte(v, '\r') < 0 {
		out = append(out, v...)
		return append(out, "\r\n"...)
	}
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch == '\r' || ch == '\n' {
			ch = ' '
		}
		out = append(out, ch)
	}
	return append(out, "\r\n"...)
}

// hasControl reports whether s has a byte below 0x0e (CR and LF among
// them), eight bytes at a time: a word has such a byte exactly when
// (x - 0x0e0e...) & ^x & 0x8080... is not zero. The last word overlaps the
// one before it rather than being checked byte by byte.
func hasControl(s string) bool {
	const lo, hi = 0x0e0e0e0e0e0e0e0e, 0x8080808080808080
	n := len(s)
	if n < 8 {
		for i := 0; i < n; i++ {
			if s[i] < 0x0e {
				return true
			}
		}
		return false
	}
	for i := 0; i < n-8; i += 8 {
		if x := word(s[i : i+8]); (x-lo)&^x&hi != 0 {
			return true
		}
	}
	x := word(s[n-8:])
	return (x-lo)&^x&hi != 0
}

// word is the first eight bytes of s as a little-endian number.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
