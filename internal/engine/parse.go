package engine

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"unsafe"

	"github.com/plinth-go/plinth/internal/httpsyntax"
	"golang.org/x/net/http/httpguts"
)

// parseError is a request the server refuses before any handler runs: the
// status and the reason written after it, as net/http writes them.
type parseError struct {
	status int
	reason string // "" for the plain status text
}

func (e *parseError) Error() string { return strconv.Itoa(e.status) + " " + e.reason }

func badRequest(reason string) *parseError { return &parseError{status: 400, reason: reason} }

var (
	errTooLarge      = &parseError{status: 431}
	errUnsupportedTE = &parseError{status: 501, reason: "Unsupported transfer encoding"}
	errVersion       = &parseError{status: 505, reason: "unsupported protocol version"}
	errObsFold       = badRequest("obs-fold") // RFC 9112 5.2: refused, see docs/engine.md
	errMalformed     = badRequest("")
)

// headEnd scans b for the end of a request head: the first empty line after
// the request line (a line is ended by LF, a CR before it is dropped, as
// net/http's reader does). It returns the length of the head, the empty line
// included, or 0 when the head is not complete yet. from is where scanning
// may resume (a line boundary already scanned); next is where to resume.
// Complete lines are checked as they come (checkRequestLine,
// checkHeaderLine), so that a malformed head is refused as soon as its bad
// line has arrived, as net/http does, rather than when its end arrives.
// What the checks find (the request line's split, where each header line's
// name and value are) is noted in sc, which a scan from 0 starts afresh, so
// that parseHead slices the head without reading it a second time.
func headEnd(b []byte, from int, sc *headScan) (n, next int, err *parseError) {
	i := from
	if i == 0 {
		sc.lines, sc.badName = 0, false
	}
	for {
		j := indexLF(b[i:])
		if j < 0 {
			return 0, i, nil
		}
		line := b[i : i+j]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if i == 0 {
			if err := checkRequestLine(line, sc); err != nil {
				return 0, i, err
			}
		} else if len(line) == 0 {
			return i + j + 1, i + j + 1, nil
		} else {
			colon, end, spaced, err := checkHeaderLine(line)
			if err != nil {
				return 0, i, err
			}
			if sc.lines < len(sc.line) {
				sc.line[sc.lines] = lineSpan{int32(i), int32(i + colon), int32(i + end)}
			}
			sc.lines++
			sc.badName = sc.badName || spaced
		}
		i += j + 1
	}
}

// headScan is what headEnd found in the head it returned: where the request
// line splits and what version it names, and where the first header lines'
// names and values are (parseHead scans any further lines itself).
type headScan struct {
	sp1, sp2, end int // the request line is head[:end], its spaces at sp1 and sp2
	major, minor  int
	lines         int  // header lines (all of them, also past len(line))
	badName       bool // a header name holds a space (refused after the Host checks)
	line          [24]lineSpan
}

// lineSpan is a header line of the head: head[start:colon] is its name,
// head[colon+1:end] its value, spaces and tabs at its end trimmed.
type lineSpan struct{ start, colon, end int32 }

func indexLF(b []byte) int { return bytes.IndexByte(b, '\n') }

// checkRequestLine refuses a request line that net/http refuses before it
// reads any header (parseRequestLine, validMethod, ParseHTTPVersion,
// url.ParseRequestURI's control-character check), and notes its split in sc.
func checkRequestLine(line []byte, sc *headScan) *parseError {
	// The line is read in place: nothing of it outlives the call but the
	// clone of an unusual target (string(line) would copy a line longer
	// than 32 bytes to the heap).
	l := unsafe.String(unsafe.SliceData(line), len(line))
	method, target, _, major, minor, err := splitRequestLine(l)
	if err != nil {
		return err
	}
	if target == "" && method != "CONNECT" {
		return errMalformed // net/url refuses an empty URL; CONNECT's "http://" + target is one
	}
	if !simpleTarget(target) {
		// A target net/url refuses is refused at once, as net/http does
		// (the copy keeps the line's bytes from escaping).
		var u url.URL
		if err := setURL(&u, method, strings.Clone(target)); err != nil {
			return err
		}
	}
	sc.sp1 = len(method)
	sc.sp2 = len(method) + 1 + len(target)
	sc.end = len(line)
	sc.major, sc.minor = major, minor
	return nil
}

// simpleTarget reports whether setURL takes target without net/url.
func simpleTarget(target string) bool {
	if target == "" || target[0] != '/' {
		return false
	}
	for i := 0; i < len(target); i++ {
		if c := target[i]; c == '?' {
			return strings.IndexByte(target[i+1:], '?') < 0
		} else if !pathSafe[c] {
			return false
		}
	}
	return true
}

// checkHeaderLine refuses a header line that net/http's MIME reader refuses:
// a folded line (refused here, where net/http would join it), a line
// without a colon, a name that is not a token, a value with a control byte.
// It returns where the colon is, where the line ends once spaces and tabs
// are trimmed from its end, and whether the name holds a space.
func checkHeaderLine(line []byte) (colon, end int, spaced bool, err *parseError) {
	if line[0] == ' ' || line[0] == '\t' {
		return 0, 0, false, errObsFold
	}
	line = trimRight(line)
	colon = bytes.IndexByte(line, ':')
	if colon <= 0 {
		return 0, 0, false, errMalformed
	}
	for _, c := range line[:colon] {
		// A space is let through here, as net/textproto does: net/http
		// refuses the name later, after its version and Host checks.
		if !httpsyntax.IsTokenByte(c) {
			if c != ' ' {
				return 0, 0, false, errMalformed
			}
			spaced = true
		}
	}
	if !validValue(line[colon+1:]) {
		return 0, 0, false, errMalformed
	}
	return colon, len(line), spaced, nil
}

// validValue reports whether every byte of v is a validValueByte, eight
// bytes at a time: a word is all printable ASCII when no byte is below 0x20
// and none is 0x7f or above; only a word that is not goes byte by byte (for
// a tab, DEL or obs-text).
func validValue(v []byte) bool {
	if len(v) < 8 {
		for _, c := range v {
			if !validValueByte(c) {
				return false
			}
		}
		return true
	}
	n := len(v)
	for i := 0; i < n-8; i += 8 {
		if !validWord(v[i:]) {
			return false
		}
	}
	// The last eight bytes, overlapping the word before when the length is
	// not a multiple of eight.
	return validWord(v[n-8:])
}

// validWord is validValue for the first eight bytes of v.
func validWord(v []byte) bool {
	const lo, hi, one = 0x2020202020202020, 0x8080808080808080, 0x0101010101010101
	x := binary.LittleEndian.Uint64(v)
	// A byte below 0x20 (x-lo borrows into its top bit), or with its top bit
	// set, or 0x7f (x+one sets its top bit) marks the word; borrows and
	// carries can mark a word falsely, never hide a byte, and a marked
	// word is checked byte by byte (a tab, obs-text and DEL are told apart
	// there).
	if ((x-lo)|x|(x+one))&hi == 0 {
		return true
	}
	for _, c := range v[:8] {
		if !validValueByte(c) {
			return false
		}
	}
	return true
}

// trimRight drops trailing spaces and tabs, as net/textproto's trim does at
// the end of a header line (a CR left before the line's CRLF stays, and
// fails the value check).
func trimRight[T string | []byte](s T) T {
	n := len(s)
	for n > 0 && (s[n-1] == ' ' || s[n-1] == '\t') {
		n--
	}
	return s[:n]
}

func trimLeftSpaceTab(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

// validValueByte is net/textproto's: VCHAR, SP, HTAB and obs-text.
func validValueByte(c byte) bool { return c >= 0x80 || c == '\t' || (c >= 0x20 && c != 0x7f) }

// splitRequestLine splits and checks "METHOD target HTTP/x.y" as net/http
// does.
func splitRequestLine(line string) (method, target, proto string, major, minor int, err *parseError) {
	sp1 := strings.IndexByte(line, ' ')
	if sp1 < 0 {
		return "", "", "", 0, 0, errMalformed
	}
	method, rest := line[:sp1], line[sp1+1:]
	sp2 := strings.IndexByte(rest, ' ')
	if sp2 < 0 {
		return "", "", "", 0, 0, errMalformed
	}
	target, proto = rest[:sp2], rest[sp2+1:]
	if method == "" {
		return "", "", "", 0, 0, errMalformed
	}
	for i := 0; i < len(method); i++ {
		if !httpsyntax.IsTokenByte(method[i]) {
			return "", "", "", 0, 0, errMalformed
		}
	}
	var ok bool
	switch proto {
	case "HTTP/1.1":
		major, minor, ok = 1, 1, true
	case "HTTP/1.0":
		major, minor, ok = 1, 0, true
	default:
		major, minor, ok = http.ParseHTTPVersion(proto)
	}
	if !ok {
		return "", "", "", 0, 0, errMalformed
	}
	for i := 0; i < len(target); i++ {
		if c := target[i]; c < ' ' || c == 0x7f {
			return "", "", "", 0, 0, errMalformed
		}
	}
	return method, target, proto, major, minor, nil
}

// pathSafe marks the bytes that net/url keeps as they are in a path: a
// target made of them alone parses to Path == the target, RawPath "".
var pathSafe = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "-._~$&+,/:;=@" {
		t[c] = true
	}
	return t
}()

// setURL fills u from an origin-form target without allocating when the
// path needs no decoding, and through url.ParseRequestURI otherwise
// (absolute form, escapes, CONNECT's authority form).
func setURL(u *url.URL, method, target string) *parseError {
	if len(target) > 0 && target[0] == '/' {
		path, query, hasQuery := target, "", false
		if q := strings.IndexByte(target, '?'); q >= 0 {
			path, query, hasQuery = target[:q], target[q+1:], true
		}
		simple := true
		for i := 0; i < len(path); i++ {
			if !pathSafe[path[i]] {
				simple = false
				break
			}
		}
		if simple && (!hasQuery || strings.IndexByte(query, '?') < 0) {
			*u = url.URL{Path: path, RawQuery: query}
			if hasQuery && query == "" {
				u.ForceQuery = true
			}
			return nil
		}
	}
	raw := target
	justAuthority := method == "CONNECT" && !strings.HasPrefix(raw, "/")
	if justAuthority {
		raw = "http://" + raw
	}
	p, err := url.ParseRequestURI(raw)
	if err != nil {
		return errMalformed
	}
	if justAuthority {
		p.Scheme = ""
	}
	*u = *p
	return nil
}

// canonicalKey returns the canonical form of a token header name: k itself
// (a slice of the head, no allocation) when it is canonical already.
func canonicalKey(k string) string {
	upper := true
	for i := 0; i < len(k); i++ {
		c := k[i]
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			return textproto.CanonicalMIMEHeaderKey(k)
		}
		upper = c == '-'
	}
	return k
}

// parseHead fills req (already reset) from head, a complete request head
// checked line by line by headEnd. It applies net/http's checks in net/http's
// order, so that a request refused for two reasons gets net/http's status.
// The header's values are sliced from the exchange's array while it lasts.
func (c *conn) parseHead(head string) *parseError {
	req, sc := c.req, &c.scan
	line := head[:sc.end]
	method, target, proto := line[:sc.sp1], line[sc.sp1+1:sc.sp2], line[sc.sp2+1:]
	major, minor := sc.major, sc.minor
	req.Method, req.RequestURI, req.Proto, req.ProtoMajor, req.ProtoMinor = method, target, proto, major, minor
	if perr := setURL(req.URL, method, target); perr != nil {
		return perr
	}
	h := req.Header
	vals := c.ex.vals[:0]
	badName := sc.badName
	// The fields the server itself reads are noted on the way, so that no
	// map lookup is needed for them: Host and Transfer-Encoding never enter
	// the map (net/http deletes both before the handler runs).
	hi := &c.hi
	hi.reset()
	// The lines headEnd noted are sliced out where it found them; past
	// those, the rest of the head is scanned again.
	var rest string
	for k := 0; ; k++ {
		var key, value string
		if k < sc.lines && k < len(sc.line) {
			ls := sc.line[k]
			key = canonicalKey(head[ls.start:ls.colon])
			value = trimLeftSpaceTab(head[ls.colon+1 : ls.end])
			if k == len(sc.line)-1 {
				rest = head[ls.end:]
				rest = rest[strings.IndexByte(rest, '\n')+1:]
			}
		} else {
			if k < len(sc.line) {
				break // every line was noted
			}
			i := strings.IndexByte(rest, '\n')
			line := rest[:i]
			rest = rest[i+1:]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			line = trimRight(line)
			if line == "" {
				break
			}
			colon := strings.IndexByte(line, ':')
			key = canonicalKey(line[:colon])
			value = trimLeftSpaceTab(line[colon+1:])
		}
		switch key {
		case "Host":
			if hi.hosts == 0 {
				hi.host = value
			}
			hi.hosts++
			continue
		case "Transfer-Encoding":
			if hi.tes == 0 {
				hi.te = value
			}
			hi.tes++
			continue
		case "Content-Length":
			hi.cls++
		case "Connection":
			hi.conn = true
		case "Pragma":
			hi.pragma = true
		case "Expect":
			hi.expect = true
		case "Trailer":
			hi.trailer = true
		}
		if hi.seen(key) {
			h[key] = append(h[key], value)
			continue
		}
		if len(vals) < cap(vals) {
			vals = vals[:len(vals)+1]
			vals[len(vals)-1] = value
			h[key] = vals[len(vals)-1 : len(vals) : len(vals)]
		} else {
			h[key] = []string{value}
		}
	}
	if hi.hosts > 1 {
		return badRequest("too many Host headers")
	}
	req.Host = req.URL.Host
	if req.Host == "" && hi.hosts > 0 {
		req.Host = hi.host
	}
	if method == "PRI" && len(h) == 0 && hi.hosts == 0 && target == "*" && proto == "HTTP/2.0" {
		// As net/http: neither chunked nor declared, and the connection
		// closes after the handler unless it hijacks it.
		defer func() { req.ContentLength, req.Close = -1, true }()
	}
	if hi.pragma {
		if pragma := h["Pragma"]; len(pragma) > 0 && pragma[0] == "no-cache" {
			if _, ok := h["Cache-Control"]; !ok {
				h["Cache-Control"] = []string{"no-cache"}
			}
		}
	}
	switch {
	case major < 1:
		req.Close = true
	case hi.conn:
		req.Close = shouldClose(major, minor, h)
	default:
		req.Close = major == 1 && minor == 0
	}
	if perr := c.readTransfer(); perr != nil {
		return perr
	}
	if major != 1 && !(major == 2 && minor == 0 && method == "PRI" && target == "*") {
		return errVersion
	}
	if (major > 1 || major == 1 && minor >= 1) && hi.hosts == 0 && method != "CONNECT" && !(method == "PRI" && major == 2) {
		return badRequest("missing required Host header")
	}
	if hi.hosts == 1 && !httpguts.ValidHostHeader(hi.host) {
		return badRequest("malformed Host header")
	}
	// Values were checked by headEnd; net/http's ValidHeaderFieldValue is the
	// same rule on what is left after trimming.
	if badName {
		return badRequest("invalid header name")
	}
	return nil
}

// headInfo is what parseHead noted of the fields the server reads.
type headInfo struct {
	host, te                      string
	hosts, tes, cls               int
	conn, pragma, expect, trailer bool
	keys                          [12]string // the first names, to tell a repeat without a lookup
	nkeys                         int
	overflow                      bool
}

// reset empties hi for the next head (keys past nkeys are not read).
func (hi *headInfo) reset() {
	hi.host, hi.te = "", ""
	hi.hosts, hi.tes, hi.cls, hi.nkeys = 0, 0, 0, 0
	hi.conn, hi.pragma, hi.expect, hi.trailer, hi.overflow = false, false, false, false, false
}

// seen reports whether key was met before in this head, and notes it.
func (hi *headInfo) seen(key string) bool {
	for i := 0; i < hi.nkeys; i++ {
		if hi.keys[i] == key {
			return true
		}
	}
	if hi.nkeys < len(hi.keys) {
		hi.keys[hi.nkeys] = key
		hi.nkeys++
		return false
	}
	if hi.overflow {
		return true // past the first names: h[key] is read, and append works for a new one too
	}
	hi.overflow = true
	return true
}

func shouldClose(major, minor int, h http.Header) bool {
	if major < 1 {
		return true
	}
	conv := h["Connection"]
	hasClose := httpguts.HeaderValuesContainsToken(conv, "close")
	if major == 1 && minor == 0 {
		return hasClose || !httpguts.HeaderValuesContainsToken(conv, "keep-alive")
	}
	return hasClose
}

// readTransfer decides the body's framing as net/http's readTransfer and
// fixLength do for a request, and sets ContentLength, TransferEncoding,
// Trailer and the body reader.
func (c *conn) readTransfer() *parseError {
	req := c.req
	h := req.Header
	chunked := false
	hi := &c.hi
	if hi.tes > 0 {
		if req.ProtoMajor > 1 || req.ProtoMajor == 1 && req.ProtoMinor >= 1 {
			if hi.tes != 1 {
				return errUnsupportedTE
			}
			if !strings.EqualFold(hi.te, "chunked") {
				return errUnsupportedTE
			}
			chunked = true
		}
	}
	var cls []string
	if hi.cls > 0 {
		cls = h["Content-Length"]
	}
	if len(cls) > 1 {
		first := textproto.TrimString(cls[0])
		for _, ct := range cls[1:] {
			if first != textproto.TrimString(ct) {
				return badRequest("")
			}
		}
		h["Content-Length"] = []string{first}
		cls = h["Content-Length"]
	}
	var n int64 = -1
	if len(cls) > 0 {
		cl := textproto.TrimString(cls[0])
		if cl == "" {
			return badRequest("")
		}
		v, err := strconv.ParseUint(cl, 10, 63)
		if err != nil {
			return badRequest("")
		}
		n = int64(v)
	}
	switch {
	case chunked:
		if hi.cls > 0 {
			delete(h, "Content-Length")
		}
		n = -1
	case len(cls) > 0:
	default:
		if hi.cls > 0 {
			delete(h, "Content-Length") // present, but empty of values: cannot happen from a head
		}
		n = 0
	}
	req.ContentLength = n
	if chunked {
		req.TransferEncoding = []string{"chunked"} // the handler's own: it may change it
	}
	// Looked up only when the head had the field (noted by parseHead).
	if hi.trailer && chunked {
		if vv, ok := h["Trailer"]; ok {
			delete(h, "Trailer")
			var tr http.Header
			var bad bool
			for _, v := range vv {
				for _, f := range strings.Split(v, ",") {
					f = textproto.TrimString(f)
					if f == "" {
						continue
					}
					key := http.CanonicalHeaderKey(f)
					switch key {
					case "Transfer-Encoding", "Trailer", "Content-Length":
						bad = true
					}
					if tr == nil {
						tr = make(http.Header)
					}
					tr[key] = nil
				}
			}
			if bad {
				return badRequest("")
			}
			req.Trailer = tr
		}
	}
	switch {
	case chunked:
		c.body.resetChunked(c)
		req.Body = &c.ex.body
	case n == 0:
		req.Body = http.NoBody
		c.body = body{c: c, eof: true} // nothing to read or discard after the handler
	default:
		c.body.resetLength(c, n)
		c.body.closing = req.Close
		req.Body = &c.ex.body
	}
	return nil
}
