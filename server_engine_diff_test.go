package plinth

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/plinth-go/plinth/racetest"
)

// refusalAllowed lists the cases where the engine may refuse what net/http
// accepts, each with its written reason (docs/engine.md, "What differs").
// Nothing else may differ.
var refusalAllowed = map[string]string{
	"header/obs-fold":            "obs-fold: RFC 9112 5.2 lets a server reject it with 400; the engine does",
	"header/obs-fold-tab":        "obs-fold: RFC 9112 5.2 lets a server reject it with 400; the engine does",
	"header/obs-fold-first":      "obs-fold: RFC 9112 5.2 lets a server reject it with 400; the engine does",
	"header/obs-fold-host":       "obs-fold: RFC 9112 5.2 lets a server reject it with 400; the engine does",
	"header/obs-fold+next":       "obs-fold: RFC 9112 5.2 lets a server reject it with 400; the engine does",
	"file/obs-fold-multi":        "obs-fold: RFC 9112 5.2 lets a server reject it with 400; the engine does",
	"trailer/obs-fold":           "obs-fold in a trailer: RFC 9112 5.2; the engine rejects the body",
	"file/obs-fold-trailer-name": "obs-fold in a trailer: RFC 9112 5.2; the engine rejects the body",
}

// second is a well-formed request appended to framing cases: how the
// stream is cut shows in whether, and how, it is served.
const second = "GET /second HTTP/1.1\r\nHost: example.com\r\n\r\n"

func req(head, body string) string { return head + "\r\n" + body }

// engineCorpus builds the differential corpus: Go tables here, plus the
// hand-written cases in testdata/engine/*.txt.
func engineCorpus(t testing.TB) []diffCase {
	var cs []diffCase
	add := func(name, raw string) { cs = append(cs, diffCase{name, raw}) }
	addBoth := func(name, raw string) { add(name, raw); add(name+"+second", raw+second) }

	// Valid requests.
	get := "GET / HTTP/1.1\r\nHost: example.com\r\n"
	add("valid/get", req(get, ""))
	add("valid/get-query", req("GET /a/b?x=1&y=%20z&x=2 HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/get-fragment", req("GET /a#frag HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/get-empty-query", req("GET /a? HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/head", req("HEAD /h HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/head+get", req("HEAD /h HTTP/1.1\r\nHost: example.com\r\n", "")+req(get, ""))
	add("valid/close", req("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n", "")+req(get, ""))
	add("valid/close-mixed-case", req("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: CLOSE\r\n", "")+req(get, ""))
	add("valid/connection-list", req("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive, close\r\n", "")+req(get, ""))
	for _, n := range []int{2, 3, 10, 50} {
		add(fmt.Sprintf("valid/pipelined-%d", n), strings.Repeat(req(get, ""), n))
	}
	add("valid/pipelined-mixed", req(get, "")+req("POST /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n", "hello")+
		req("PUT /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "3\r\nabc\r\n0\r\n\r\n")+
		req("HEAD / HTTP/1.1\r\nHost: example.com\r\n", "")+req("DELETE /d?x HTTP/1.1\r\nHost: example.com\r\n", ""))
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "FOO", "M-SEARCH", "PROPFIND", "get", "Get"} {
		add("method/"+m, req(m+" /m HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n", "hi"))
	}
	add("valid/post-cl", req("POST /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 11\r\nContent-Type: text/plain\r\n", "hello world"))
	add("valid/post-cl0", req("POST /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n", ""))
	add("valid/post-no-length", req("POST /p HTTP/1.1\r\nHost: example.com\r\n", "ignored?"))
	add("valid/chunked", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"))
	add("valid/chunked-ext", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "5;a=b\r\nhello\r\n6;x;y=\"q s\"\r\n world\r\n0;last\r\n\r\n"))
	add("valid/chunked-upper-hex", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "A\r\n0123456789\r\n0\r\n\r\n"))
	add("valid/chunked-leading-zeros", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "0005\r\nhello\r\n000\r\n\r\n"))
	add("valid/chunked-trailer", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTrailer: X-T\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\nX-T: v\r\n\r\n"))
	add("valid/chunked-trailer-undeclared", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\nX-U: v\r\nX-V: w\r\n\r\n"))
	add("valid/chunked-trailer-two-declared", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTrailer: X-A, X-B\r\nTransfer-Encoding: chunked\r\n", "1\r\na\r\n0\r\nX-B: 2\r\nX-A: 1\r\n\r\n"))
	add("valid/chunked-pipelined", strings.Repeat(req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\n\r\n"), 3))
	add("valid/chunked-many", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", strings.Repeat("1\r\nx\r\n", 500)+"0\r\n\r\n"))
	add("valid/chunked-big", req("POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "10000\r\n"+strings.Repeat("b", 65536)+"\r\n0\r\n\r\n"))
	add("valid/cl-big", req("POST /c HTTP/1.1\r\nHost: example.com\r\nContent-Length: 100000\r\n", strings.Repeat("c", 100000)))
	add("valid/absolute", req("GET http://example.com/abs?q=1 HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/absolute-other-host", req("GET http://other.example/abs HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/absolute-no-host", req("GET http://other.example/abs HTTP/1.1\r\n", ""))
	add("valid/absolute-https-port", req("GET https://other.example:8443/abs HTTP/1.1\r\nHost: x\r\n", ""))
	add("valid/absolute-userinfo", req("GET http://u:p@other.example/abs HTTP/1.1\r\nHost: x\r\n", ""))
	add("valid/absolute-no-path", req("GET http://other.example HTTP/1.1\r\nHost: x\r\n", ""))
	add("valid/absolute-ftp", req("GET ftp://other.example/x HTTP/1.1\r\nHost: x\r\n", ""))
	add("valid/connect", req("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n", ""))
	add("valid/connect-path", req("CONNECT /path HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/http10", req("GET / HTTP/1.0\r\n", ""))
	add("valid/http10-host", req("GET / HTTP/1.0\r\nHost: example.com\r\n", "")+req(get, ""))
	add("valid/http10-keepalive", req("GET / HTTP/1.0\r\nConnection: keep-alive\r\n", "")+req("GET /2 HTTP/1.0\r\nConnection: keep-alive\r\n", ""))
	add("valid/http10-keepalive-post", req("POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 3\r\n", "abc")+req("GET /2 HTTP/1.0\r\n", ""))
	add("valid/http10-body-no-length", req("POST / HTTP/1.0\r\n", "abc"))
	add("valid/expect-100", req("POST /e HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\nContent-Length: 5\r\n", "hello"))
	add("valid/expect-100-case", req("POST /e HTTP/1.1\r\nHost: example.com\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n", "hello"))
	add("valid/expect-100-no-body-sent", req("POST /e HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\nContent-Length: 5\r\n", ""))
	add("valid/expect-100-chunked", req("POST /e HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\n\r\n"))
	add("valid/expect-100-http10", req("POST /e HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n", "hello"))
	add("valid/expect-100-no-length", req("GET /e HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\n", ""))
	add("bad/expect-other", req("POST /e HTTP/1.1\r\nHost: example.com\r\nExpect: something\r\nContent-Length: 5\r\n", "hello"))
	add("bad/expect-two", req("POST /e HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\nExpect: 100-continue\r\nContent-Length: 5\r\n", "hello"))
	add("valid/options-star", req("OPTIONS * HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/options-star-10", req("OPTIONS * HTTP/1.0\r\n", ""))
	add("valid/options-star-body", req("OPTIONS * HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3\r\n", "abc")+req(get, ""))
	add("bad/get-star", req("GET * HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("valid/upgrade-header", req("GET / HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n", ""))
	add("valid/header-list", req("GET / HTTP/1.1\r\nHost: example.com\r\nAccept: a\r\nAccept: b\r\naccept-encoding: gzip\r\nX-Empty:\r\nX-Sp:   v  \r\n", ""))
	add("valid/header-high-bytes", req("GET / HTTP/1.1\r\nHost: example.com\r\nX-Utf: caf\xc3\xa9 \xff\x80\r\n", ""))
	add("valid/header-tab-in-value", req("GET / HTTP/1.1\r\nHost: example.com\r\nX-T: a\tb\r\n", ""))
	add("valid/cookie", req("GET / HTTP/1.1\r\nHost: example.com\r\nCookie: a=1\r\nCookie: b=2\r\n", ""))
	for _, n := range []int{1000, 8000, 60000, 70000} {
		add(fmt.Sprintf("uri/long-%d", n), req("GET /"+strings.Repeat("a", n)+" HTTP/1.1\r\nHost: example.com\r\n", ""))
	}
	add("uri/long-query", req("GET /?"+strings.Repeat("q=1&", 5000)+" HTTP/1.1\r\nHost: example.com\r\n", ""))

	// Paths.
	for i, p := range []string{"/%2F", "/a%2Fb", "/%00", "/%zz", "/%", "/%a", "/\xff\xfe", "/caf\xc3\xa9", "/a b", "/a%20b",
		"//double", "/a/../b", "/./a", "/a/.", "/..", "/%2e%2e/x", "/x?%zz", "/x?a=\xff", "noslash", "/a\\b", "/a\x7f", "/a\x01",
		"/~user", "/a;b", "/a:b", "/@", "/[", "/a#b#c", "/?#", "/%25", "/a%2fb%2F"} {
		add(fmt.Sprintf("path/%02d-%s", i, strconv.Quote(p)), req("GET "+p+" HTTP/1.1\r\nHost: example.com\r\n", ""))
	}

	// Content-Length, alone and followed by a second request.
	for i, cl := range []string{"5", "05", "00000000000000000000000005", "+5", "-5", "-0", "0x5", "5 ", " 5", "5\t", "5.0", "1e1", "",
		"5, 5", "5,5", "5, 6", "5 5", "five", "99999999999999999999", "9223372036854775807", "9223372036854775808",
		"18446744073709551616", "\xef\xbc\x95"} {
		addBoth(fmt.Sprintf("cl/%02d-%s", i, strconv.Quote(cl)), req("POST /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: "+cl+"\r\n", "hello"))
	}
	addBoth("cl/duplicate-same", req("POST /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nContent-Length: 5\r\n", "hello"))
	addBoth("cl/duplicate-different", req("POST /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nContent-Length: 6\r\n", "hello!"))
	addBoth("cl/duplicate-zero", req("POST /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\nContent-Length: 5\r\n", "hello"))
	addBoth("cl/on-get", req("GET /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n", "hello"))
	addBoth("cl/on-head", req("HEAD /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n", "hello"))
	addBoth("cl/short-body", req("POST /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n", "hello"))
	addBoth("cl/name-case", req("POST /cl HTTP/1.1\r\nHost: example.com\r\ncontent-LENGTH: 5\r\n", "hello"))
	addBoth("cl/space-before-colon", req("POST /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length : 5\r\n", "hello"))
	addBoth("cl/over-limit", req("POST /cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3000000\r\n", "hello"))
	addBoth("cl/http10", req("POST /cl HTTP/1.0\r\nContent-Length: 5\r\n", "hello"))

	// Transfer-Encoding variants, on their own, with Content-Length in both
	// orders, and on HTTP/1.0.
	chunkedBody := "5\r\nhello\r\n0\r\n\r\n"
	for i, te := range []string{"chunked", "Chunked", "CHUNKED", "chunked, identity", "identity, chunked", "identity", "xchunked",
		"chunkedx", " chunked", "\tchunked", "chunked\t", "chunked ", "chunked, chunked", "gzip, chunked", "chunked, gzip", "gzip",
		"deflate", "chunked;q=1", "", ",chunked", "chunked,", "\"chunked\"", "ch\x00unked", "chunked\x0b", "\xe2\x80\x8bchunked"} {
		name := strconv.Quote(te)
		addBoth(fmt.Sprintf("te/%02d-%s", i, name), req("POST /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: "+te+"\r\n", chunkedBody))
		addBoth(fmt.Sprintf("te/%02d-%s-cl-first", i, name), req("POST /te HTTP/1.1\r\nHost: example.com\r\nContent-Length: 4\r\nTransfer-Encoding: "+te+"\r\n", chunkedBody))
		addBoth(fmt.Sprintf("te/%02d-%s-cl-after", i, name), req("POST /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: "+te+"\r\nContent-Length: 4\r\n", chunkedBody))
		addBoth(fmt.Sprintf("te/%02d-%s-http10", i, name), req("POST /te HTTP/1.0\r\nTransfer-Encoding: "+te+"\r\n", chunkedBody))
	}
	addBoth("te/twice", req("POST /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", chunkedBody))
	addBoth("te/twice-identity", req("POST /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n", chunkedBody))
	addBoth("te/twice-gzip", req("POST /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", chunkedBody))
	addBoth("te/name-space-before-colon", req("POST /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding : chunked\r\n", chunkedBody))
	addBoth("te/name-underscore", req("POST /te HTTP/1.1\r\nHost: example.com\r\nTransfer_Encoding: chunked\r\n", chunkedBody))
	addBoth("te/name-lower", req("POST /te HTTP/1.1\r\nHost: example.com\r\ntransfer-encoding: chunked\r\n", chunkedBody))
	addBoth("te/on-get", req("GET /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", chunkedBody))
	addBoth("te/on-head", req("HEAD /te HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", chunkedBody))

	// Chunk framing.
	chunked := "POST /ch HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n"
	for i, body := range []string{
		"-5\r\nhello\r\n0\r\n\r\n", "ffffffffffffffffff\r\nhello\r\n0\r\n\r\n", "10000000000000000\r\nhello\r\n0\r\n\r\n",
		"7fffffffffffffff\r\nhello\r\n0\r\n\r\n", "0x5\r\nhello\r\n0\r\n\r\n", " 5\r\nhello\r\n0\r\n\r\n", "5 \r\nhello\r\n0\r\n\r\n",
		"5\t\r\nhello\r\n0\r\n\r\n", "\r\nhello\r\n0\r\n\r\n", "g\r\nhello\r\n0\r\n\r\n", "+5\r\nhello\r\n0\r\n\r\n",
		"5;a\x00b\r\nhello\r\n0\r\n\r\n", "5;\r\nhello\r\n0\r\n\r\n", "5 ;a=b\r\nhello\r\n0\r\n\r\n", "5;a=b;c\r\nhello\r\n0\r\n\r\n",
		"5;a=\"x\r\ny\"\r\nhello\r\n0\r\n\r\n", "5;" + strings.Repeat("e", 5000) + "\r\nhello\r\n0\r\n\r\n",
		"5\nhello\n0\n\n", "5\r\nhello\n0\r\n\r\n", "5\nhello\r\n0\r\n\r\n", "5\r\nhello\r\n0\n\n", "5\rhello\r\n0\r\n\r\n",
		"5\r\nhelloXX\r\n0\r\n\r\n", "5\r\nhel\r\n0\r\n\r\n", "5\r\nhello0\r\n\r\n", "5\r\nhello\r\n0\r\n", "5\r\nhello\r\n",
		"5\r\nhello\r\n0\r\n\r\nEXTRA", "3\r\nabc\r\n0\r\nContent-Length: 100\r\n\r\n", "3\r\nabc\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n",
		"3\r\nabc\r\n0\r\nHost: evil.example\r\n\r\n", "3\r\nabc\r\n0\r\nX-T: a\x00b\r\n\r\n", "3\r\nabc\r\n0\r\nX T: a\r\n\r\n",
		"3\r\nabc\r\n0\r\nNoColon\r\n\r\n", "3\r\nabc\r\n0\r\nX-T: a\r\n b\r\n\r\n", "3\r\nabc\r\n0\r\nX-T: a\n\n", "3\r\nabc\r\n0\r\nX-T: a\n\r\n", "3\r\nabc\r\n0\r\nX-T: a\r\n\n",
		"3\r\nabc\r\n0\r\nX-T : a\r\n\r\n", "3\r\nabc\r\n0\r\n" + strings.Repeat("X-Big: "+strings.Repeat("t", 100)+"\r\n", 1000) + "\r\n",
		"00000000000000000003\r\nabc\r\n0\r\n\r\n", "3\r\nabc\r\n00\r\n\r\n", "3\r\nabc\r\n0;ext=1\r\n\r\n", "0\r\n\r\n",
		"1\r\na\r\n1\r\nb\r\n1\r\nc\r\n0\r\n\r\n", "3\r\nabc\r\r\n0\r\n\r\n",
	} {
		name := fmt.Sprintf("chunk/%02d-%.30q", i, body)
		if strings.Contains(body, "X-T: a\r\n b") {
			name = "trailer/obs-fold"
		}
		addBoth(name, req(chunked, body))
	}

	// Header syntax.
	h := func(extra string) string { return req("GET /h HTTP/1.1\r\nHost: example.com\r\n"+extra, "") }
	add("header/obs-fold", h("X-A: a\r\n b\r\n"))
	add("header/obs-fold-tab", h("X-A: a\r\n\tb\r\n"))
	add("header/obs-fold-first", req("GET /h HTTP/1.1\r\n X-A: a\r\nHost: example.com\r\n", ""))
	add("header/obs-fold-host", req("GET /h HTTP/1.1\r\nHost: example.com\r\n .evil\r\n", ""))
	add("header/obs-fold+next", h("X-A: a\r\n b\r\n")+req(get, ""))
	for i, v := range []string{"X-A : a", "X-A\t: a", "X-A:a", " X-A: a", "X A: a", "X(A): a", "X\"A\": a", ": empty name", "NoColon",
		"X-A: a\x00b", "X-A: a\rb", "X-A: a\x7fb", "X-A: a\x01b", "X-A: a\x1fb", "X-A: \x00", "X-\xffA: a", "X-A: a\nX-B: b",
		"X-A:: a", "X-A: a: b", "X-\x00: a", "Host: example.com", "Content-Type: a\r\nContent-Type: b", "X-A:\t a \t",
		"X-" + strings.Repeat("n", 10000) + ": v", "X-A: " + strings.Repeat("v", 50000), "\x00", "X-A: a\r\r\n",
	} {
		add(fmt.Sprintf("header/%02d-%s", i, strconv.Quote(v)), h(v+"\r\n"))
	}
	add("header/lf-only", "GET /lf HTTP/1.1\nHost: example.com\nX-A: a\n\n")
	add("header/lf-only-pipelined", "GET /lf HTTP/1.1\nHost: example.com\n\nGET /lf2 HTTP/1.1\nHost: example.com\n\n")
	add("header/lf-mixed", "GET /lf HTTP/1.1\r\nHost: example.com\nX-A: a\r\n\n")
	add("header/lf-end", "GET /lf HTTP/1.1\r\nHost: example.com\r\n\n")
	add("header/lf-requestline", "GET /lf HTTP/1.1\nHost: example.com\r\n\r\n")
	add("header/cr-only", "GET /cr HTTP/1.1\rHost: example.com\r\r")
	add("header/cr-in-line", "GET /cr HTTP/1.1\r\nHost: example.com\r\nX-A: a\rX-B: b\r\n\r\n")
	add("header/cr-cr-lf", "GET /cr HTTP/1.1\r\r\nHost: example.com\r\n\r\n")
	add("header/crlf-before", "\r\n"+req(get, ""))
	add("header/crlf-before-2", "\r\n\r\n"+req(get, ""))
	add("header/crlf-before-many", strings.Repeat("\r\n", 100)+req(get, ""))
	add("header/lf-before", "\n"+req(get, ""))
	add("header/crlf-between", req(get, "")+"\r\n"+req(get, ""))
	add("header/space-before", " "+req(get, ""))
	for _, n := range []int{100, 1000, 5000, 10000} {
		add(fmt.Sprintf("header/count-%d", n), h(strings.Repeat("X-N: 1\r\n", n)))
		add(fmt.Sprintf("header/count-distinct-%d", n), h(distinctHeaders(n)))
	}
	add("header/count-tiny-13000", h(strings.Repeat("a:b\r\n", 13000)))

	// The header block around MaxHeaderBytes (64 KiB): exactly, one less,
	// one and two more, and net/http's own limit (plus 4096).
	for _, total := range []int{65536 - 1, 65536, 65536 + 1, 65536 + 2, 65536 + 4096, 65536 + 4097, 1 << 20} {
		add(fmt.Sprintf("limit/head-%d", total), headOfSize(total))
		add(fmt.Sprintf("limit/head-%d+second", total), headOfSize(total)+second)
	}

	// Heads around the engine's read buffer (4 KiB) and its multiples, alone
	// and after a first request, so that the head straddles the buffer.
	for _, total := range []int{4094, 4095, 4096, 4097, 4098, 8191, 8192, 8193, 16384, 32769} {
		add(fmt.Sprintf("buffer/head-%d", total), headOfSize(total))
		add(fmt.Sprintf("buffer/after-get-head-%d", total), req(get, "")+headOfSize(total))
		add(fmt.Sprintf("buffer/after-post-head-%d", total), req("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n", "abc")+"\r\n"+headOfSize(total))
	}

	// Host.
	for i, host := range []string{"", "example.com:80", "example.com:", "[::1]", "[::1]:8080", "::1", "a b", "a/b", "a\\b", "ex..com",
		"exam_ple.com", "%", "%41", "a@b", "u:p@h", "h:abc", "h:99999", "xn--caf-dma.example", "caf\xc3\xa9.example", "a\x00", "a\x7f",
		"*", "-", "h;x", "h,x", "h\"", "[::1", "::1]", strings.Repeat("h", 5000)} {
		add(fmt.Sprintf("host/%02d-%s", i, strconv.Quote(host)), req("GET /host HTTP/1.1\r\nHost: "+host+"\r\n", ""))
		add(fmt.Sprintf("host/%02d-%s-http10", i, strconv.Quote(host)), req("GET /host HTTP/1.0\r\nHost: "+host+"\r\n", ""))
	}
	add("host/missing", req("GET /host HTTP/1.1\r\n", ""))
	add("host/duplicate", req("GET /host HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n", ""))
	add("host/duplicate-same", req("GET /host HTTP/1.1\r\nHost: a.example\r\nHost: a.example\r\n", ""))
	add("host/duplicate-http10", req("GET /host HTTP/1.0\r\nHost: a.example\r\nHost: b.example\r\n", ""))
	add("host/list", req("GET /host HTTP/1.1\r\nHost: a.example, b.example\r\n", ""))
	add("host/lower", req("GET /host HTTP/1.1\r\nhost: a.example\r\n", ""))
	add("host/absolute-differs", req("GET http://a.example/x HTTP/1.1\r\nHost: b.example\r\n", ""))
	add("host/absolute-bad-host-header", req("GET http://a.example/x HTTP/1.1\r\nHost: a b\r\n", ""))

	// Request lines.
	for i, line := range []string{"GET  / HTTP/1.1", "GET / HTTP/1.1 ", "GET /  HTTP/1.1", "GET\t/\tHTTP/1.1", "GET / HTTP/1.1\t",
		" GET / HTTP/1.1", "GET /", "GET / ", "GET", "/ HTTP/1.1", " / HTTP/1.1", "GET / HTTP/2.0", "GET / HTTP/1.2", "GET / HTTP/1.9",
		"GET / HTTP/0.9", "GET / HTTP/1.10", "GET / HTTP/01.1", "GET / HTTP/1.01", "GET / http/1.1", "GET / HTTP/1", "GET / HTTP/1.",
		"GET / HTTP/2", "GET / HTTP/3.0", "GET / HTTP/1.1x", "GET / FOO/1.1", "GET / HTTP /1.1", "G(ET / HTTP/1.1", "GE T / HTTP/1.1",
		"G\x00ET / HTTP/1.1", "GET\x00/ HTTP/1.1", "GET /\x00 HTTP/1.1", "GÉT / HTTP/1.1", "GET / HTTP/1.1\x00", "PRI * HTTP/2.0",
		"GET ? HTTP/1.1", "GET /?x HTTP/1.1 extra", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", "GET " + strings.Repeat("/", 3) + " HTTP/1.1",
		strings.Repeat("G", 1000) + " / HTTP/1.1", strings.Repeat("G", 70000) + " / HTTP/1.1"} {
		add(fmt.Sprintf("line/%02d-%.40s", i, strconv.Quote(line)), req(line+"\r\nHost: example.com\r\n", ""))
	}
	add("line/http2-preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	add("line/empty-then-close", "\r\n")
	add("line/nothing", "")
	add("line/partial-head", "GET / HTTP/1.1\r\nHost: exa")

	// Smuggling patterns seen in the wild, with a request hidden in the body.
	hidden := "GET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n"
	addBoth("smuggle/cl-te", req("POST /s HTTP/1.1\r\nHost: example.com\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"+hidden))
	addBoth("smuggle/te-cl", req("POST /s HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n", "8\r\nSMUGGLED\r\n0\r\n\r\n"))
	addBoth("smuggle/te-te-obf", req("POST /s HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\nTransfer-encoding: cow\r\n", "0\r\n\r\n"+hidden))
	addBoth("smuggle/cl-body-is-request", req(fmt.Sprintf("POST /s HTTP/1.1\r\nHost: example.com\r\nContent-Length: %d\r\n", len(hidden)), hidden))
	addBoth("smuggle/get-with-body", req(fmt.Sprintf("GET /s HTTP/1.1\r\nHost: example.com\r\nContent-Length: %d\r\n", len(hidden)), hidden))
	addBoth("smuggle/chunk-size-cl-in-trailer", req(chunked, "0\r\nContent-Length: 50\r\n\r\n"+hidden))
	addBoth("smuggle/lf-chunk-terminator", req(chunked, "2\r\nab\n0\r\n\r\n"+hidden))
	addBoth("smuggle/chunk-ext-lf", req(chunked, "2;x\nab\r\n0\r\n\r\n"+hidden))

	// Bodies the handler leaves unread: the server must discard them (or
	// close), never read them as the next request.
	for _, body := range []struct{ name, head, body string }{
		{"cl", fmt.Sprintf("Content-Length: %d\r\n", len(hidden)), hidden},
		{"cl-short", "Content-Length: 50\r\n", hidden},
		{"chunked", "Transfer-Encoding: chunked\r\n", fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(hidden), hidden)},
		{"chunked-bad", "Transfer-Encoding: chunked\r\n", "zz\r\n" + hidden},
		{"cl-te", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n" + hidden},
		{"big-cl", "Content-Length: 300000\r\n", strings.Repeat("x", 300000)},
		{"big-chunked", "Transfer-Encoding: chunked\r\n", "493e0\r\n" + strings.Repeat("x", 300000) + "\r\n0\r\n\r\n"},
		{"expect", fmt.Sprintf("Expect: 100-continue\r\nContent-Length: %d\r\n", len(hidden)), hidden},
	} {
		addBoth("noread/"+body.name, req("POST /noread HTTP/1.1\r\nHost: example.com\r\n"+body.head, body.body))
		add("noread/"+body.name+"-http10", req("POST /noread HTTP/1.0\r\nConnection: keep-alive\r\n"+body.head, body.body)+"GET /second HTTP/1.0\r\n\r\n")
	}
	// Bodies not finished when the answer goes out (a redirect for an
	// unclean path asks to close): the rest is still read, up to 256 KiB,
	// before the connection closes, unless the request asked to close and
	// the body has a length (what the stream fuzzer found).
	add("unfinished/redirect-chunked", req("POST /////////ch HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\n"))
	add("unfinished/redirect-chunked-close", req("POST //ch HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n", "5\r\nhel"))
	add("unfinished/redirect-cl", req("POST //cl HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n", "01234"))
	add("unfinished/redirect-cl-close", req("POST //cl HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nContent-Length: 10\r\n", "01234"))
	add("unfinished/noread-chunked", req("POST /noread HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n"))
	add("unfinished/noread-cl", req("POST /noread HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n", "01234"))
	add("unfinished/next-request-3-bytes", req(get, "")+"GET")
	add("unfinished/after-post-crlf", req("POST /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 1\r\n", "x")+"\r\nG")
	// CONNECT's authority is read as "http://" + target: empty is a URL.
	add("connect/empty-target", req("CONNECT  HTTP/1.1\r\nHost: example.com\r\n", ""))
	add("connect/empty-target-http10", req("CONNECT  HTTP/1.0\r\n", ""))

	// Probes never read a body: it is cut (Connection: close), never read
	// as the next request.
	for _, probe := range []string{"/livez", "/readyz"} {
		addBoth("probe"+probe, req("GET "+probe+" HTTP/1.1\r\nHost: a\r\n", ""))
		addBoth("probe"+probe+"-cl-body", req(fmt.Sprintf("POST %s HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n", probe, len(hidden)), hidden))
		addBoth("probe"+probe+"-chunked-body", req("POST "+probe+" HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n", fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(hidden), hidden)))
		add("probe"+probe+"-head", req("HEAD "+probe+" HTTP/1.1\r\nHost: a\r\n", "")+second)
		add("probe"+probe+"-query", req("GET "+probe+"?verbose HTTP/1.1\r\nHost: a\r\n", "")+second)
		add("probe"+probe+"-absolute", req("GET http://a"+probe+" HTTP/1.1\r\nHost: a\r\n", "")+second)
	}

	// Responses beyond the write buffer: pipelined, HEAD, HTTP/1.0.
	add("big/pipelined", strings.Repeat("GET /big HTTP/1.1\r\nHost: a\r\n\r\n", 4))
	add("big/head-then-get", "HEAD /big HTTP/1.1\r\nHost: a\r\n\r\nGET /big HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
	add("big/http10", "GET /big HTTP/1.0\r\n\r\n")
	add("big/http10-keepalive", "GET /big HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\n\r\n")
	add("big/close", "GET /big HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")

	cs = append(cs, fileCorpus(t)...)
	return cs
}

func distinctHeaders(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "X-H%d: %d\r\n", i, i)
	}
	return b.String()
}

// headOfSize returns a GET whose request line and headers, final CRLF
// included, are total bytes long.
func headOfSize(total int) string {
	start := "GET /size HTTP/1.1\r\nHost: example.com\r\n"
	const name = "X-Pad: "
	pad := total - len(start) - len(name) - 2 - 2
	var b strings.Builder
	b.WriteString(start)
	for pad > 8000 { // keep each line well-formed and modest
		b.WriteString("X-Pad: " + strings.Repeat("p", 7990) + "\r\n")
		pad -= 7990 + len(name) + 2
	}
	b.WriteString(name + strings.Repeat("p", max(pad, 0)) + "\r\n\r\n")
	return b.String()
}

// fileCorpus reads testdata/engine/*.txt: one case per line, "name<TAB>Go
// quoted string"; lines starting with # are comments.
func fileCorpus(t testing.TB) []diffCase {
	files, _ := filepath.Glob(filepath.Join("testdata", "engine", "*.txt"))
	var cs []diffCase
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for ln := 1; sc.Scan(); ln++ {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			name, q, ok := strings.Cut(line, "\t")
			raw, err := strconv.Unquote(strings.TrimSpace(q))
			if !ok || err != nil {
				t.Fatalf("%s:%d: want name<TAB>\"quoted\": %v", f, ln, err)
			}
			cs = append(cs, diffCase{"file/" + name, raw})
		}
		fh.Close()
	}
	return cs
}

// TestEngineDifferential sends every case of the corpus to plinth.New() on
// net/http and on the engine, and compares. Zero cases may be served by the
// engine and not by net/http; the engine may refuse what net/http serves
// only in the cases of refusalAllowed.
func TestEngineDifferential(t *testing.T) {
	t.Parallel()
	runDifferential(t, engineCorpus(t), nil, nil)
}

// TestEngineDifferentialMutated mutates the corpus with a fixed seed (byte
// flips, inserted CR, LF, SP, HT, NUL, ",", ":", duplicated and dropped
// bytes, cut streams), 400 cases, and compares as the corpus. A refusal
// where the mutation made a line start with SP or HT is obs-fold.
func TestEngineDifferentialMutated(t *testing.T) {
	t.Parallel()
	base := engineCorpus(t)
	rng := rand.New(rand.NewPCG(26, 2026))
	inserts := []string{"\r", "\n", " ", "\t", "\x00", ",", ":", "\r\n", "\x7f", "\xff", "0", "-", "chunked"}
	var cs []diffCase
	for i := 0; len(cs) < 400; i++ {
		b := base[rng.IntN(len(base))]
		if len(b.raw) == 0 || len(b.raw) > 4096 {
			continue
		}
		raw := []byte(b.raw)
		for range 1 + rng.IntN(3)/2 { // mostly one mutation, so that many cases stay close to valid
			if len(raw) == 0 {
				break
			}
			at := rng.IntN(len(raw))
			switch rng.IntN(5) {
			case 0:
				raw[at] ^= byte(1 << rng.IntN(8))
			case 1:
				raw = slices.Insert(raw, at, []byte(inserts[rng.IntN(len(inserts))])...)
			case 2:
				raw = slices.Delete(raw, at, min(len(raw), at+1+rng.IntN(3)))
			case 3:
				raw = slices.Insert(raw, at, raw[at:min(len(raw), at+1+rng.IntN(8))]...)
			case 4:
				raw = raw[:at]
			}
		}
		cs = append(cs, diffCase{fmt.Sprintf("mut/%03d-%s", len(cs), b.name), string(raw)})
	}
	runDifferential(t, cs, nil, func(c diffCase, s, e outcome) bool {
		return mayFold.MatchString(c.raw) && e.closed && e.served() <= s.served() && slices.Equal(s.obs[:e.served()], e.obs)
	})
}

// TestEngineDifferentialLimits runs the cases around the limits with small
// ones: MaxHeaderBytes 5000 (431 past it), MaxBodyBytes 64 (413, or a read
// error for a chunked body past it), a short paced body and header timeout.
func TestEngineDifferentialLimits(t *testing.T) {
	t.Parallel()
	var cs []diffCase
	add := func(name, raw string) { cs = append(cs, diffCase{name, raw}) }
	for total := 4990; total <= 5010; total++ {
		add(fmt.Sprintf("head-%d", total), headOfSize(total))
		add(fmt.Sprintf("head-%d+second", total), headOfSize(total)+second)
	}
	for _, n := range []int{0, 1, 63, 64, 65, 100, 5000} {
		body := strings.Repeat("b", n)
		add(fmt.Sprintf("cl-%d", n), req(fmt.Sprintf("POST /b HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n", n), body)+second)
		chunkedBody := ""
		if n > 0 {
			chunkedBody = fmt.Sprintf("%x\r\n%s\r\n", n, body)
		}
		add(fmt.Sprintf("chunked-%d", n), req("POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n", chunkedBody+"0\r\n\r\n")+second)
		add(fmt.Sprintf("chunked-split-%d", n), req("POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n",
			strings.Repeat("1\r\nb\r\n", n)+"0\r\n\r\n")+second)
		add(fmt.Sprintf("expect-cl-%d", n), req(fmt.Sprintf("POST /b HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: %d\r\n", n), body)+second)
		add(fmt.Sprintf("http10-cl-%d", n), req(fmt.Sprintf("POST /b HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: %d\r\n", n), body)+"GET /2 HTTP/1.0\r\n\r\n")
	}
	runDifferential(t, cs, func(c *Config) {
		c.MaxHeaderBytes = 5000
		c.MaxBodyBytes = 64
	}, nil)
}

// runDifferential runs cases on both engines and judges them; allow, if
// not nil, accepts further differences (a refusal, never serving more).
func runDifferential(t *testing.T, cases []diffCase, configure func(*Config), allow func(diffCase, outcome, outcome) bool) {
	std := startDiffServer(t, EngineStd, configure)
	eng := startDiffServer(t, EngineFast, configure)
	seenName := map[string]bool{}
	for _, c := range cases {
		if seenName[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seenName[c.name] = true
	}
	type pair struct{ std, fast outcome }
	results := make([]pair, len(cases))
	var wg sync.WaitGroup
	parallel := 16
	if racetest.Enabled {
		parallel = 4
	}
	sem := make(chan struct{}, parallel)
	for i, c := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var p pair
			var inner sync.WaitGroup
			inner.Go(func() { p.std = std.exchange(t, []byte(c.raw)) })
			p.fast = eng.exchange(t, []byte(c.raw))
			inner.Wait()
			results[i] = p
		}()
	}
	wg.Wait()
	var same, early, late, allowed, servedMore, refusedMore, otherDiff, stdRefused, stdServed int
	var failures []string
	for i, c := range cases {
		p := results[i]
		if p.std.served() == 0 {
			stdRefused++
		} else {
			stdServed++
		}
		if os.Getenv("PLINTH_TEST_DIFF_DUMP") != "" {
			t.Logf("%s: %s\n  std: %s  fast: %s", c.name, quoteRaw(c.raw), p.std, p.fast)
		}
		ok, more := verdict(p.std, p.fast)
		switch {
		case ok:
			same++
			continue
		case !more && earlyRefusal(t, std, []byte(c.raw), p.std, p.fast):
			early++
			continue
		case !more && earlyRefusal(t, eng, []byte(c.raw), p.fast, p.std):
			late++
			continue
		case more:
			servedMore++
			failures = append(failures, fmt.Sprintf("%s: THE ENGINE SERVES WHAT net/http REFUSES (or hands the handler another request)\n  raw: %s\n  std: %s  fast: %s", c.name, quoteRaw(c.raw), p.std, p.fast))
		case allow != nil && allow(c, p.std, p.fast):
			allowed++
			continue
		case refusalAllowed[c.name] != "":
			allowed++
			t.Logf("%s: allowed difference (%s)", c.name, refusalAllowed[c.name])
			continue
		case p.fast.served() < p.std.served():
			refusedMore++
			failures = append(failures, fmt.Sprintf("%s: the engine refuses what net/http serves (no written reason)\n  raw: %s\n  std: %s  fast: %s", c.name, quoteRaw(c.raw), p.std, p.fast))
		default:
			otherDiff++
			failures = append(failures, fmt.Sprintf("%s: responses differ\n  raw: %s\n  std: %s  fast: %s", c.name, quoteRaw(c.raw), p.std, p.fast))
		}
	}
	sort.Strings(failures)
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("differential std vs fast: %d cases (net/http serves %d, refuses %d): %d identical, %d allowed differences, "+
		"%d refused early (net/http refuses them too once the head ends), %d refused late (the engine refuses them too once the head ends), %d served by the engine beyond net/http, %d refused beyond net/http, %d other differences",
		len(cases), stdServed, stdRefused, same, allowed, early, late, servedMore, refusedMore, otherDiff)
}
