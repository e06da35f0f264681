package engine

import (
	"bufio"
	"bytes"
	"io"
	"log"
	"net"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http/httpguts"
)

// memConn is a net.Conn over a byte slice; what is written is kept.
type memConn struct {
	r   *bytes.Reader
	out bytes.Buffer
}

func (m *memConn) Read(p []byte) (int, error)         { return m.r.Read(p) }
func (m *memConn) Write(p []byte) (int, error)        { return m.out.Write(p) }
func (m *memConn) Close() error                       { return nil }
func (m *memConn) LocalAddr() net.Addr                { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80} }
func (m *memConn) RemoteAddr() net.Addr               { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242} }
func (m *memConn) SetDeadline(t time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(t time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(t time.Time) error { return nil }

// outcome is what a server makes of one request: the status it refuses it
// with (0: served, -1: closed without a word), and, served, the request.
type outcome struct {
	status int
	req    *http.Request
	body   []byte
	berr   bool
}

// stdOutcome is net/http's server: http.ReadRequest plus the checks its
// conn.readRequest adds.
func stdOutcome(raw []byte) outcome {
	br := bufio.NewReader(bytes.NewReader(raw))
	req, err := http.ReadRequest(br)
	if err != nil {
		switch {
		case err == io.EOF:
			return outcome{status: -1}
		case strings.Contains(err.Error(), "transfer encoding"):
			return outcome{status: 501}
		}
		return outcome{status: 400}
	}
	if req.ProtoMajor != 1 && !(req.ProtoMajor == 2 && req.ProtoMinor == 0 && req.Method == "PRI" && req.RequestURI == "*") {
		return outcome{status: 505}
	}
	// http.ReadRequest deletes Host from the header: read it again as the
	// server's reader sees it.
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	_, _ = tp.ReadLine()
	mh, _ := tp.ReadMIMEHeader()
	hosts, haveHost := mh["Host"]
	isH2Upgrade := req.Method == "PRI" && len(mh) == 0 && req.URL.Path == "*" && req.Proto == "HTTP/2.0"
	if req.ProtoAtLeast(1, 1) && (!haveHost || len(hosts) == 0) && !isH2Upgrade && req.Method != "CONNECT" {
		return outcome{status: 400}
	}
	if len(hosts) == 1 && !httpguts.ValidHostHeader(hosts[0]) {
		return outcome{status: 400}
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return outcome{status: 400}
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return outcome{status: 400}
			}
		}
	}
	delete(req.Header, "Host")
	b, err := io.ReadAll(req.Body)
	return outcome{req: req, body: b, berr: err != nil}
}

// engineOutcome is the engine's parser on the same bytes.
func engineOutcome(raw []byte) (outcome, *parseError) {
	mc := &memConn{r: bytes.NewReader(raw)}
	s := New(Config{Handler: http.NotFoundHandler(), MaxHeaderBytes: 1 << 20, ErrorLog: log.New(io.Discard, "", 0)})
	c := newConn(s, mc)
	c.br = bufio.NewReaderSize(mc, readBufferSize)
	head, perr, ok := c.readHead()
	if !ok {
		return outcome{status: -1}, nil
	}
	if perr != nil {
		return outcome{status: perr.status}, perr
	}
	c.reset()
	if perr := c.parseHead(head); perr != nil {
		return outcome{status: perr.status}, perr
	}
	b, err := io.ReadAll(c.req.Body)
	return outcome{req: c.req, body: b, berr: err != nil}, nil
}

// compareHead reports how the engine's reading of raw differs from
// net/http's; "" when it does not. Refusing an obs-fold that net/http
// accepts is the one written exception.
func compareHead(raw []byte) string {
	std := stdOutcome(raw)
	eng, perr := engineOutcome(raw)
	if std.status != eng.status {
		if perr == errObsFold { // refused, whatever net/http makes of the fold
			return ""
		}
		return "status: net/http " + itoa(std.status) + ", engine " + itoa(eng.status)
	}
	if std.status != 0 {
		return ""
	}
	a, b := std.req, eng.req
	for _, f := range []struct {
		name string
		x, y any
	}{
		{"Method", a.Method, b.Method},
		{"RequestURI", a.RequestURI, b.RequestURI},
		{"URL", *a.URL, *b.URL},
		{"Proto", a.Proto, b.Proto},
		{"ProtoMajor", a.ProtoMajor, b.ProtoMajor},
		{"ProtoMinor", a.ProtoMinor, b.ProtoMinor},
		{"Header", a.Header, b.Header},
		{"Host", a.Host, b.Host},
		{"ContentLength", a.ContentLength, b.ContentLength},
		{"TransferEncoding", a.TransferEncoding, b.TransferEncoding},
		{"Close", a.Close, b.Close},
		{"Trailer", a.Trailer, b.Trailer},
		{"body", string(std.body), string(eng.body)},
		{"body error", std.berr, eng.berr},
	} {
		if !reflect.DeepEqual(f.x, f.y) {
			return f.name + ": net/http " + sprint(f.x) + ", engine " + sprint(f.y)
		}
	}
	return ""
}

func itoa(n int) string { return strings.TrimSpace(strings.Replace(sprint(n), " ", "", -1)) }

func sprint(v any) string {
	return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(fmtV(v), "\n", " "), "\t", " "))
}

// headSeeds is the seed corpus: valid requests and the request-smuggling
// corpus, run as a plain test by go test.
var headSeeds = []string{
	"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET /a/b?c=d&e HTTP/1.1\r\nHost: a\r\nUser-Agent: x\r\nAccept: */*\r\n\r\n",
	"GET /a%20b/%2F?x=%zz HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET /{x}/ü HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET /? HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET /a?b?c HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET //a//b HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET http://example.com/p?q HTTP/1.1\r\nHost: other\r\n\r\n",
	"GET http://user@example.com:8080/p HTTP/1.1\r\nHost: other\r\n\r\n",
	"GET * HTTP/1.1\r\nHost: a\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
	"CONNECT /rpc HTTP/1.1\r\n\r\n",
	"GET / HTTP/1.0\r\n\r\n",
	"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	"GET / HTTP/0.9\r\n\r\n",
	"GET / HTTP/2.0\r\nHost: a\r\n\r\n",
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	"GET / HTTP/1.1\nHost: a\n\n",
	"GET / HTTP/1.1\r\nHost: a\r\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",
	"GET / HTTP/1.1\r\nhost: a\r\nx-lower: 1\r\nX-UPPER: 2\r\nx-MiXeD: 3\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\nX: 2\r\nx: 3\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nX:\r\nY:   \t v \t \r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nPragma: no-cache\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhel",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length:  5 \r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b;c\r\nhello\r\n0;x\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X-T, Y-T\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\nY-T: 2\r\nZ-T: 3\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: Content-Length\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nContent-Length: 50\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:  chunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\tchunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nz\r\nhello\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\n0\n\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;\x00\r\nhello\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nFoo: bar\r\n baz\r\n\r\n",
	"GET / HTTP/1.1\r\n Host: a\r\n\r\n",
	"GET / HTTP/1.1\r\nHost : a\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nFoo\x00: b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nFoo: b\x00c\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nFoo: b\x7fc\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nFoo: b\xffc\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n",
	"GET / HTTP/1.1\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a/b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
	"GET / HTTP/1.1\r\nHost:\r\n\r\n",
	"GET http://a/ HTTP/1.1\r\n\r\n",
	"GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET / HTTP/1.1 \r\nHost: a\r\n\r\n",
	"GET /\x01 HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET / http/1.1\r\nHost: a\r\n\r\n",
	"GET / HTTP/1.10\r\nHost: a\r\n\r\n",
	"GET / HTTP/1\r\nHost: a\r\n\r\n",
	"GET /\r\nHost: a\r\n\r\n",
	"G@T / HTTP/1.1\r\nHost: a\r\n\r\n",
	" GET / HTTP/1.1\r\nHost: a\r\n\r\n",
	"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET a HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
	"GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("v", 70000) + "\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X-A: b\r\n", 3000) + "\r\n",
	"GET / HTTP/1.1\r\nHost: a",
	// A request line cut by EOF: 400, but nothing where net/http's 4 KiB
	// line reader returns a full fragment before the EOF.
	"GET",
	strings.Repeat("a", 4095),
	strings.Repeat("a", 4096),
	strings.Repeat("a", 4095) + "\r",
	strings.Repeat("a", 4095) + "\r" + strings.Repeat("a", 4095),
	"GET /" + strings.Repeat("a", 8187),
	"GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("a", 4096),
	// CONNECT's target is read as "http://" + target: empty is a URL.
	"CONNECT  HTTP/1.1\r\n\r\n",
	"CONNECT  HTTP/1.0\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\n",
	"",
	"\r\n",
}

// FuzzHead compares the engine's request reading with net/http's on one
// request: same refusal status, or the same request (and body) handed to
// the handler.
func FuzzHead(f *testing.F) {
	for _, s := range headSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		done := make(chan string, 1)
		go func() { done <- compareHead(raw) }()
		select {
		case d := <-done:
			if d != "" {
				t.Fatalf("%q:\n%s", raw, d)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: no answer in 5s", raw)
		}
	})
}
