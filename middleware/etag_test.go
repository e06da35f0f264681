package middleware

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

const etagBody = `{"hello":"world"}`

// etagTestApp serves a few handlers behind ETag(cfg).
func etagTestApp(cfg ETagConfig) *plinth.App {
	app := plinth.Bare()
	app.Logger = slog.New(slog.DiscardHandler) // the error after a write is logged
	app.Use(ETag(cfg))
	app.Get("/json", func(c *plinth.Ctx) error {
		c.Header().Set("Cache-Control", "no-cache")
		c.Header().Set("Vary", "Accept-Language")
		return c.Bytes(http.StatusOK, "application/json", []byte(etagBody))
	})
	app.Get("/pieces", func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(c.Writer(), "a")
		_, _ = c.Writer().Write([]byte("b"))
		_, _ = io.WriteString(c.Writer(), "c")
		return nil
	})
	app.Get("/own", func(c *plinth.Ctx) error {
		c.Header().Set("ETag", `"v1"`)
		return c.Text(http.StatusOK, "own tag")
	})
	app.Get("/created", func(c *plinth.Ctx) error { return c.Text(http.StatusCreated, "made") })
	app.Get("/missing", func(c *plinth.Ctx) error { return plinth.NotFound("nothing here") })
	app.Get("/fail-after-write", func(c *plinth.Ctx) error {
		_, _ = io.WriteString(c.Writer(), "partial")
		return errors.New("boom")
	})
	app.Get("/empty", func(c *plinth.Ctx) error { return nil })
	app.Get("/big", func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "text/plain")
		for range 10 {
			_, _ = c.Writer().Write([]byte(strings.Repeat("x", 100)))
		}
		return nil
	})
	app.Post("/json", func(c *plinth.Ctx) error {
		return c.Bytes(http.StatusOK, "application/json", []byte(etagBody))
	})
	app.Head("/head-empty", func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "application/json")
		return c.NoContent(http.StatusOK)
	})
	return app
}

func condServe(app http.Handler, method, target string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	return rec
}

func etagTagOf(body string) string {
	return string(appendETag(nil, []byte(body), false))
}

func TestETag(t *testing.T) {
	app := etagTestApp(ETagConfig{})
	tag := etagTagOf(etagBody)
	weakTag := "W/" + tag
	tests := []struct {
		name       string
		method     string
		path       string
		hdr        []string
		status     int
		body       string
		etag       string // expected ETag header; "-" for none
		noCType    bool   // Content-Type must be absent (304)
		contentLen string // expected Content-Length; "" not checked
	}{
		{name: "plain GET is tagged", method: "GET", path: "/json", status: 200, body: etagBody, etag: tag, contentLen: strconv.Itoa(len(etagBody))},
		{name: "HEAD gets the GET tag", method: "HEAD", path: "/json", status: 200, etag: tag},
		{name: "pieces are hashed whole", method: "GET", path: "/pieces", status: 200, body: "abc", etag: etagTagOf("abc")},
		{name: "If-None-Match match", method: "GET", path: "/json", hdr: []string{"If-None-Match", tag}, status: 304, etag: tag, noCType: true},
		{name: "If-None-Match weak form matches", method: "GET", path: "/json", hdr: []string{"If-None-Match", weakTag}, status: 304, etag: tag, noCType: true},
		{name: "If-None-Match list", method: "GET", path: "/json", hdr: []string{"If-None-Match", `"nope", W/"other" ,` + tag}, status: 304, etag: tag},
		{name: "If-None-Match list split over fields", method: "GET", path: "/json", hdr: []string{"If-None-Match", `"nope"`, "If-None-Match", tag}, status: 304, etag: tag},
		{name: "If-None-Match star", method: "GET", path: "/json", hdr: []string{"If-None-Match", "*"}, status: 304, etag: tag},
		{name: "If-None-Match other", method: "GET", path: "/json", hdr: []string{"If-None-Match", `"nope"`}, status: 200, body: etagBody, etag: tag},
		{name: "If-None-Match malformed", method: "GET", path: "/json", hdr: []string{"If-None-Match", `nope, W/, "unterminated`}, status: 200, body: etagBody, etag: tag},
		{name: "HEAD If-None-Match", method: "HEAD", path: "/json", hdr: []string{"If-None-Match", tag}, status: 304, etag: tag},
		{name: "If-Match match", method: "GET", path: "/json", hdr: []string{"If-Match", tag}, status: 200, body: etagBody, etag: tag},
		{name: "If-Match star", method: "GET", path: "/json", hdr: []string{"If-Match", "*"}, status: 200, body: etagBody, etag: tag},
		{name: "If-Match other is 412", method: "GET", path: "/json", hdr: []string{"If-Match", `"nope"`}, status: 412, etag: tag},
		{name: "If-Match weak is 412 (strong comparison)", method: "GET", path: "/json", hdr: []string{"If-Match", weakTag}, status: 412, etag: tag},
		{name: "handler's own tag kept", method: "GET", path: "/own", status: 200, body: "own tag", etag: `"v1"`},
		{name: "handler's own tag answered", method: "GET", path: "/own", hdr: []string{"If-None-Match", `W/"v1"`}, status: 304, etag: `"v1"`, noCType: true},
		{name: "handler's own tag If-Match", method: "GET", path: "/own", hdr: []string{"If-Match", `"v2"`}, status: 412, etag: `"v1"`},
		{name: "non-200 untouched", method: "GET", path: "/created", hdr: []string{"If-None-Match", "*"}, status: 201, body: "made", etag: "-"},
		{name: "error passes through", method: "GET", path: "/missing", hdr: []string{"If-None-Match", "*"}, status: 404, etag: "-"},
		{name: "error after a write keeps the write", method: "GET", path: "/fail-after-write", status: 200, body: "partial", etag: "-"},
		{name: "empty response untouched", method: "GET", path: "/empty", status: 200, etag: "-"},
		{name: "POST untouched", method: "POST", path: "/json", hdr: []string{"If-None-Match", "*"}, status: 200, body: etagBody, etag: "-"},
		{name: "HEAD without a body is not tagged", method: "HEAD", path: "/head-empty", status: 200, etag: "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := condServe(app, tt.method, tt.path, tt.hdr...)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d (body %q)", rec.Code, tt.status, rec.Body)
			}
			if tt.method != "HEAD" && tt.status != 404 && rec.Body.String() != tt.body {
				t.Errorf("body %q, want %q", rec.Body, tt.body)
			}
			got := rec.Header().Get("ETag")
			if tt.etag == "-" {
				if got != "" {
					t.Errorf("ETag %q, want none", got)
				}
			} else if got != tt.etag {
				t.Errorf("ETag %q, want %q", got, tt.etag)
			}
			if tt.noCType && rec.Header().Get("Content-Type") != "" {
				t.Errorf("304 carries Content-Type %q", rec.Header().Get("Content-Type"))
			}
			if tt.contentLen != "" && rec.Header().Get("Content-Length") != tt.contentLen {
				t.Errorf("Content-Length %q, want %q", rec.Header().Get("Content-Length"), tt.contentLen)
			}
			if rec.Code == 304 && rec.Body.Len() != 0 {
				t.Errorf("304 with a body: %q", rec.Body)
			}
		})
	}
}

func TestETagNotModifiedKeepsCachingHeaders(t *testing.T) {
	rec := condServe(etagTestApp(ETagConfig{}), "GET", "/json", "If-None-Match", etagTagOf(etagBody))
	if rec.Code != 304 {
		t.Fatalf("status %d", rec.Code)
	}
	for k, want := range map[string]string{"Cache-Control": "no-cache", "Vary": "Accept-Language", "Etag": etagTagOf(etagBody)} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding"} {
		if _, ok := rec.Header()[k]; ok {
			t.Errorf("304 carries %s", k)
		}
	}
}

func TestETagProblemBody(t *testing.T) {
	rec := condServe(etagTestApp(ETagConfig{}), "GET", "/missing")
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q", ct)
	}
	if !strings.Contains(rec.Body.String(), `"detail":"nothing here"`) {
		t.Fatalf("body %q", rec.Body)
	}
}

func TestETagWeakOption(t *testing.T) {
	app := etagTestApp(ETagConfig{Weak: true})
	weak := "W/" + etagTagOf(etagBody)
	rec := condServe(app, "GET", "/json")
	if got := rec.Header().Get("ETag"); got != weak {
		t.Fatalf("ETag %q, want %q", got, weak)
	}
	if rec := condServe(app, "GET", "/json", "If-None-Match", etagTagOf(etagBody)); rec.Code != 304 {
		t.Fatalf("weak comparison: status %d, want 304", rec.Code)
	}
	if rec := condServe(app, "GET", "/json", "If-Match", weak); rec.Code != 412 {
		t.Fatalf("If-Match against a weak tag: status %d, want 412", rec.Code)
	}
}

func TestETagMaxBody(t *testing.T) {
	app := etagTestApp(ETagConfig{MaxBody: 512})
	rec := condServe(app, "GET", "/big")
	if rec.Code != 200 || rec.Body.Len() != 1000 {
		t.Fatalf("status %d, %d bytes", rec.Code, rec.Body.Len())
	}
	if rec.Header().Get("ETag") != "" {
		t.Fatalf("a body past the limit was tagged")
	}
	// Under the limit it is tagged.
	rec = condServe(etagTestApp(ETagConfig{MaxBody: 1000}), "GET", "/big")
	if rec.Header().Get("ETag") != etagTagOf(strings.Repeat("x", 1000)) {
		t.Fatalf("ETag %q", rec.Header().Get("ETag"))
	}
}

// TestETagStreaming checks that a flushed response reaches the client while
// the handler still runs, untagged.
func TestETagStreaming(t *testing.T) {
	release := make(chan struct{})
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{}))
	app.Get("/stream", func(c *plinth.Ctx) error {
		_, _ = io.WriteString(c.Writer(), "first\n")
		if err := http.NewResponseController(c.Writer()).Flush(); err != nil {
			return err
		}
		<-release
		_, _ = io.WriteString(c.Writer(), "second\n")
		return nil
	})
	srv := httptest.NewServer(app)
	defer srv.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	resp, err := http.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("ETag") != "" {
		t.Fatalf("streamed response tagged %q", resp.Header.Get("ETag"))
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	if string(rest) != "second\n" {
		t.Fatalf("rest %q", rest)
	}
}

func TestETagMatch(t *testing.T) {
	tests := []struct {
		field string
		tag   string
		weak  bool
		want  bool
	}{
		{`"a"`, `"a"`, false, true},
		{`"a"`, `W/"a"`, true, true},
		{`"a"`, `W/"a"`, false, false},
		{`W/"a"`, `"a"`, true, true},
		{`W/"a"`, `"a"`, false, false},
		{`*`, `W/"a"`, false, true},
		{` "b" , "a" `, `"a"`, false, true},
		{`"b",,"a"`, `"a"`, false, true},
		{`"a,b"`, `"a,b"`, false, true},
		{`"a,b"`, `"a"`, false, false},
		{`a, "a"`, `"a"`, false, true},
		{`W/`, `"a"`, true, false},
		{`W/a, "a"`, `"a"`, true, true},
		{`"a`, `"a"`, true, false},
		{``, `"a"`, true, false},
		{`"A"`, `"a"`, true, false},
	}
	for _, tt := range tests {
		if got := etagMatch([]string{tt.field}, tt.tag, tt.weak); got != tt.want {
			t.Errorf("etagMatch(%q, %q, weak=%v) = %v, want %v", tt.field, tt.tag, tt.weak, got, tt.want)
		}
	}
}

func TestETagConcurrent(t *testing.T) {
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{}))
	app.Get("/n/{n}", func(c *plinth.Ctx) error {
		return c.Text(http.StatusOK, strings.Repeat(c.Param("n"), 50))
	})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				n := strconv.Itoa(g*1000 + i)
				want := strings.Repeat(n, 50)
				rec := condServe(app, "GET", "/n/"+n)
				if rec.Body.String() != want || rec.Header().Get("ETag") != etagTagOf(want) {
					t.Errorf("request %s: body %q, ETag %q", n, rec.Body, rec.Header().Get("ETag"))
					return
				}
				if rec := condServe(app, "GET", "/n/"+n, "If-None-Match", etagTagOf(want)); rec.Code != 304 {
					t.Errorf("request %s: conditional status %d", n, rec.Code)
					return
				}
			}
		})
	}
	wg.Wait()
}

// etagDiscardWriter is a ResponseWriter that keeps nothing, for allocation
// counts.
type etagDiscardWriter struct{ h http.Header }

func (w *etagDiscardWriter) Header() http.Header         { return w.h }
func (w *etagDiscardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *etagDiscardWriter) WriteHeader(int)             {}

func TestETagAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under -race")
	}
	body := []byte(strings.Repeat("x", 2048))
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{}))
	app.Get("/", func(c *plinth.Ctx) error { return c.Bytes(http.StatusOK, "", body) })
	tag := etagTagOf(string(body))
	for _, tt := range []struct {
		name   string
		inm    string
		budget float64
	}{
		// The tag string and its header slice, Content-Length's string
		// and its slice; the wrapper and buffer are pooled.
		{"miss", "", 4},
		// The tag string and its header slice.
		{"hit", tag, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			if tt.inm != "" {
				req.Header.Set("If-None-Match", tt.inm)
			}
			w := &etagDiscardWriter{h: http.Header{}}
			app.ServeHTTP(w, req) // warm the pools
			got := testing.AllocsPerRun(200, func() {
				clear(w.h)
				app.ServeHTTP(w, req)
			})
			if got > tt.budget {
				t.Fatalf("%v allocations per request, budget %v", got, tt.budget)
			}
			t.Logf("%v allocations per request", got)
		})
	}
}

func ExampleETag() {
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{}))
	app.Get("/greeting", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, "hello") })

	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/greeting", nil))
	tag := rec.Header().Get("ETag")

	req := httptest.NewRequest("GET", "/greeting", nil)
	req.Header.Set("If-None-Match", tag)
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body.Len())
	// Output: 304 0
}

// ReadFrom stands for the server's writer, which copies files without a
// buffer per request.
func (w *etagDiscardWriter) ReadFrom(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }

// etagOnlyReader hides strings.Reader's WriteTo, so that io.Copy would use
// the destination's ReadFrom.
type etagOnlyReader struct{ io.Reader }

func TestETagReadFrom(t *testing.T) {
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{MaxBody: 1000}))
	app.Get("/copy/{n}", func(c *plinth.Ctx) error {
		n, _ := strconv.Atoi(c.Param("n"))
		rf, ok := c.Writer().(io.ReaderFrom)
		if !ok {
			return errors.New("no ReadFrom")
		}
		_, err := rf.ReadFrom(etagOnlyReader{strings.NewReader(strings.Repeat("y", n))})
		return err
	})
	for _, n := range []int{0, 10, 999, 1000, 1001, 5000} {
		rec := condServe(app, "GET", "/copy/"+strconv.Itoa(n))
		want := strings.Repeat("y", n)
		if rec.Code != 200 || rec.Body.String() != want {
			t.Fatalf("n=%d: status %d, %d bytes", n, rec.Code, rec.Body.Len())
		}
		wantTag := etagTagOf(want)
		if n > 1000 {
			wantTag = ""
		}
		if got := rec.Header().Get("ETag"); got != wantTag {
			t.Errorf("n=%d: ETag %q, want %q", n, got, wantTag)
		}
	}
}

func TestETagHijack(t *testing.T) {
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{}))
	app.Get("/ws", func(c *plinth.Ctx) error {
		hj, ok := c.Writer().(http.Hijacker)
		if !ok {
			return errors.New("no Hijacker")
		}
		conn, brw, err := hj.Hijack()
		if err != nil {
			return err
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\nhello")
		return brw.Flush()
	})
	srv := httptest.NewServer(app)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/ws", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d", resp.StatusCode)
	}
	b, _ := io.ReadAll(resp.Body.(io.Reader))
	if string(b) != "hello" {
		t.Fatalf("body %q", b)
	}
}

// TestETagPanic checks that a handler panicking after it wrote leaves the
// recovery layer of plinth.New() a clean writer for its 500.
func TestETagPanic(t *testing.T) {
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	app.Use(ETag(ETagConfig{}))
	app.Get("/panic", func(c *plinth.Ctx) error {
		_, _ = io.WriteString(c.Writer(), "partial")
		panic("boom")
	})
	rec := condServe(app, "GET", "/panic")
	if rec.Code != 500 || rec.Header().Get("Content-Type") != "application/problem+json" || strings.Contains(rec.Body.String(), "partial") {
		t.Fatalf("status %d, Content-Type %q, body %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
}
