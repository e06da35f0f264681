package compress_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware/compress"
)

var codings = []string{compress.Brotli, compress.Zstd, compress.Gzip}

// newApp returns a Bare App with the middleware (built from cfg) around h
// at GET /x, and errors logged nowhere.
func newApp(h plinth.HandlerFunc, cfg compress.Config) *plinth.App {
	app := plinth.Bare()
	app.Logger = slog.New(slog.DiscardHandler)
	app.Use(compress.New(cfg))
	app.Get("/x", h)
	return app
}

// do sends one request to app. ae is the Accept-Encoding value ("-" for
// none); hdr holds further request header pairs.
func do(app http.Handler, method, ae string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/x", nil)
	if ae != "-" {
		req.Header.Set("Accept-Encoding", ae)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	return rec
}

// decode undoes coding ("" for none) with the same libraries.
func decode(t testing.TB, coding string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return b
	case compress.Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = zr
	case compress.Brotli:
		r = brotli.NewReader(bytes.NewReader(b))
	case compress.Zstd:
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("zstd: %v", err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("unknown coding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: decoding: %v", coding, err)
	}
	return out
}

// text returns n bytes of compressible, slightly varied text.
func text(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	words := []string{"plinth", "column", "router", "handler", "request", "response", "gzip", "brotli", "zstd", "{\"id\":", "},"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
		if rng.IntN(8) == 0 {
			b.WriteString(strconv.Itoa(rng.IntN(100000)))
		}
	}
	return b.Bytes()[:n]
}

// send returns a handler that sends body with the given Content-Type and
// extra header pairs, through a single Write.
func send(ct string, body []byte, hdr ...string) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		h := c.Header()
		if ct != "" {
			h.Set("Content-Type", ct)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			h.Set(hdr[i], hdr[i+1])
		}
		_, err := c.Writer().Write(body)
		return err
	}
}

func TestRoundTrip(t *testing.T) {
	for _, coding := range codings {
		for _, size := range []int{1024, 4096, 100_000} {
			t.Run(fmt.Sprintf("%s/%d", coding, size), func(t *testing.T) {
				body := text(size, uint64(size))
				app := newApp(send("application/json", body), compress.Config{})
				rec := do(app, "GET", coding)
				res := rec.Result()
				if got := res.Header.Get("Content-Encoding"); got != coding {
					t.Fatalf("Content-Encoding %q, want %q", got, coding)
				}
				if got := res.Header.Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding" {
					t.Errorf("Vary %q", got)
				}
				if cl := res.Header.Get("Content-Length"); cl != "" {
					t.Errorf("Content-Length %q on a compressed response", cl)
				}
				if rec.Body.Len() >= size {
					t.Errorf("%d bytes compressed to %d", size, rec.Body.Len())
				}
				if got := decode(t, coding, rec.Body.Bytes()); !bytes.Equal(got, body) {
					t.Fatalf("decoded body differs: %d bytes, want %d", len(got), len(body))
				}
			})
		}
	}
}

func TestWriteStyles(t *testing.T) {
	body := text(5000, 7)
	styles := map[string]plinth.HandlerFunc{
		"many small writes": func(c *plinth.Ctx) error {
			c.Header().Set("Content-Type", "text/plain")
			for i := 0; i < len(body); i += 100 {
				if _, err := c.Writer().Write(body[i:min(i+100, len(body))]); err != nil {
					return err
				}
			}
			return nil
		},
		"WriteString": func(c *plinth.Ctx) error {
			c.Header().Set("Content-Type", "text/plain")
			// Called directly: io.WriteString would fall back to Write
			// if the writer lost its WriteString.
			_, err := c.Writer().(io.StringWriter).WriteString(string(body))
			return err
		},
		"io.Copy": func(c *plinth.Ctx) error {
			c.Header().Set("Content-Type", "text/plain")
			_, err := io.Copy(c.Writer(), bytes.NewReader(body))
			return err
		},
		"Ctx.Text":  func(c *plinth.Ctx) error { return c.Text(201, string(body)) },
		"Ctx.Bytes": func(c *plinth.Ctx) error { return c.Bytes(201, "text/plain", body) },
	}
	for name, h := range styles {
		for _, ae := range []string{"-", "gzip", "br", "zstd"} {
			t.Run(name+"/"+ae, func(t *testing.T) {
				rec := do(newApp(h, compress.Config{}), "GET", ae)
				coding := strings.TrimPrefix(ae, "-")
				if got := rec.Header().Get("Content-Encoding"); got != coding {
					t.Fatalf("Content-Encoding %q, want %q", got, coding)
				}
				if got := decode(t, coding, rec.Body.Bytes()); !bytes.Equal(got, body) {
					t.Fatalf("decoded body differs: %d bytes, want %d", len(got), len(body))
				}
			})
		}
	}
}

func TestMinSize(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		ae         string
		hdr        []string // response header pairs set by the handler
		cfg        compress.Config
		compressed bool
	}{
		{name: "below", size: 1023, ae: "gzip"},
		{name: "at", size: 1024, ae: "gzip", compressed: true},
		{name: "empty", size: 0, ae: "gzip"},
		{name: "custom min below", size: 99, ae: "gzip", cfg: compress.Config{MinSize: 100}},
		{name: "custom min at", size: 100, ae: "gzip", cfg: compress.Config{MinSize: 100}, compressed: true},
		{name: "min 0", size: 1, ae: "gzip", cfg: compress.Config{MinSize: 1}, compressed: true},
		{name: "min 0 empty body", size: 0, ae: "gzip", cfg: compress.Config{MinSize: 1}},
		{name: "identity forbidden compresses small", size: 10, ae: "gzip, identity;q=0", compressed: true},
		{name: "star zero compresses small", size: 10, ae: "br, *;q=0", compressed: true},
		{name: "Content-Length small", size: 100, ae: "gzip", hdr: []string{"Content-Length", "100"}},
		{name: "Content-Length large", size: 3000, ae: "gzip", hdr: []string{"Content-Length", "3000"}, compressed: true},
		{name: "Content-Length malformed ignored", size: 3000, ae: "gzip", hdr: []string{"Content-Length", "lots"}, compressed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := text(tt.size, 3)
			rec := do(newApp(send("text/plain", body, tt.hdr...), tt.cfg), "GET", tt.ae)
			got := rec.Header().Get("Content-Encoding")
			if tt.compressed != (got != "") {
				t.Fatalf("Content-Encoding %q, want compressed %v", got, tt.compressed)
			}
			if dec := decode(t, got, rec.Body.Bytes()); !bytes.Equal(dec, body) {
				t.Fatalf("body differs")
			}
			if rec.Code != 200 {
				t.Errorf("status %d", rec.Code)
			}
		})
	}
}

func TestContentTypes(t *testing.T) {
	html := []byte("<!DOCTYPE html><html><body>" + strings.Repeat("<p>plinth</p>", 200) + "</body></html>")
	binary := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 3000)...)
	custom := compress.Config{ContentTypes: []string{"application/x-custom", "model/*", "application/*+yaml"}}
	tests := []struct {
		ct         string // "" none set; "nil" present with no value (no sniffing)
		body       []byte
		cfg        compress.Config
		compressed bool
		wantCT     string // Content-Type after sniffing, when ct is ""
	}{
		{ct: "text/html; charset=utf-8", compressed: true},
		{ct: "TEXT/PLAIN", compressed: true},
		{ct: "text/css", compressed: true},
		{ct: "text/event-stream", compressed: true},
		{ct: "application/json", compressed: true},
		{ct: "application/json; charset=utf-8", compressed: true},
		{ct: " application/json ;charset=utf-8", compressed: true},
		{ct: "application/problem+json", compressed: true},
		{ct: "application/vnd.api+json", compressed: true},
		{ct: "application/javascript", compressed: true},
		{ct: "application/xml", compressed: true},
		{ct: "application/atom+xml", compressed: true},
		{ct: "image/svg+xml", compressed: true},
		{ct: "application/wasm", compressed: true},
		{ct: "image/png"},
		{ct: "image/jpeg"},
		{ct: "application/octet-stream"},
		{ct: "application/zip"},
		{ct: "font/woff2"},
		{ct: "application/json+other"},
		{ct: "application/+json"},
		{ct: "json"},
		{ct: ";;"},
		{ct: "nil"},
		{ct: "", body: html, compressed: true, wantCT: "text/html; charset=utf-8"},
		{ct: "", body: binary, wantCT: "image/png"},
		{ct: "application/x-custom", cfg: custom, compressed: true},
		{ct: "model/gltf+json", cfg: custom, compressed: true},
		{ct: "application/openapi+yaml", cfg: custom, compressed: true},
		{ct: "text/plain", cfg: custom},
	}
	for _, tt := range tests {
		t.Run(tt.ct, func(t *testing.T) {
			body := tt.body
			if body == nil {
				body = text(2000, 5)
			}
			h := func(c *plinth.Ctx) error {
				switch tt.ct {
				case "":
				case "nil":
					c.Header()["Content-Type"] = nil
				default:
					c.Header()["Content-Type"] = []string{tt.ct}
				}
				_, err := c.Writer().Write(body)
				return err
			}
			app := newApp(h, tt.cfg)
			rec := do(app, "GET", "gzip")
			got := rec.Header().Get("Content-Encoding")
			if tt.compressed != (got == "gzip") {
				t.Fatalf("Content-Encoding %q, want compressed %v", got, tt.compressed)
			}
			if dec := decode(t, got, rec.Body.Bytes()); !bytes.Equal(dec, body) {
				t.Fatalf("body differs")
			}
			if tt.wantCT != "" && rec.Header().Get("Content-Type") != tt.wantCT {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tt.wantCT)
			}
			// Vary goes with the type, whether or not the client asked.
			for _, ae := range []string{"gzip", "-"} {
				rec := do(app, "GET", ae)
				vary := rec.Header().Get("Vary")
				if tt.ct != "" && tt.compressed != (vary == "Accept-Encoding") {
					t.Errorf("Accept-Encoding %q: Vary %q, want it %v", ae, vary, tt.compressed)
				}
				if ae == "-" && rec.Header().Get("Content-Encoding") != "" {
					t.Errorf("compressed without Accept-Encoding")
				}
			}
		})
	}
}

func TestVary(t *testing.T) {
	tests := []struct {
		name  string
		vary  []string // set by the handler
		other bool     // allowed type but not compressed: too small
		want  []string
	}{
		{name: "none", want: []string{"Accept-Encoding"}},
		{name: "merged", vary: []string{"Origin"}, want: []string{"Origin, Accept-Encoding"}},
		{name: "merged list", vary: []string{"Origin, Cookie"}, want: []string{"Origin, Cookie, Accept-Encoding"}},
		{name: "several lines", vary: []string{"Origin", "Cookie"}, want: []string{"Origin, Cookie, Accept-Encoding"}},
		{name: "already there", vary: []string{"accept-encoding"}, want: []string{"accept-encoding"}},
		{name: "already in a list", vary: []string{"Origin,Accept-Encoding "}, want: []string{"Origin,Accept-Encoding "}},
		{name: "already in a second line", vary: []string{"Origin", " Accept-Encoding"}, want: []string{"Origin, Accept-Encoding"}},
		{name: "star in a list", vary: []string{"Origin, *"}, want: []string{"*"}},
		{name: "star", vary: []string{"*"}, want: []string{"*"}},
		{name: "not a substring match", vary: []string{"X-Accept-Encoding-Foo"}, want: []string{"X-Accept-Encoding-Foo, Accept-Encoding"}},
	}
	for _, tt := range tests {
		for _, size := range []int{4000, 10} {
			for _, ae := range []string{"gzip", "-"} {
				t.Run(fmt.Sprintf("%s/%d/%s", tt.name, size, ae), func(t *testing.T) {
					body := text(size, 1)
					h := func(c *plinth.Ctx) error {
						if tt.vary != nil {
							c.Header()["Vary"] = append([]string(nil), tt.vary...)
						}
						return c.Bytes(200, "application/json", body)
					}
					rec := do(newApp(h, compress.Config{}), "GET", ae)
					if got := rec.Header().Values("Vary"); fmt.Sprint(got) != fmt.Sprint(tt.want) {
						t.Errorf("Vary %q, want %q", got, tt.want)
					}
				})
			}
		}
	}
}

func TestSkips(t *testing.T) {
	body := text(4000, 2)
	tests := []struct {
		name   string
		method string
		reqHdr []string
		h      plinth.HandlerFunc
		status int
		body   []byte // the body the client must see
	}{
		{name: "HEAD", method: "HEAD", h: send("text/plain", body), status: 200, body: body}, // the recorder keeps what a server would drop
		{name: "Range request", method: "GET", reqHdr: []string{"Range", "bytes=0-10"}, h: send("text/plain", body), status: 200, body: body},
		{name: "204", method: "GET", h: func(c *plinth.Ctx) error {
			c.Header().Set("Content-Type", "text/plain")
			return c.NoContent(204)
		}, status: 204},
		{name: "304", method: "GET", h: func(c *plinth.Ctx) error {
			c.Header().Set("Content-Type", "text/plain")
			c.Header().Set("ETag", `"v1"`)
			return c.NoContent(304)
		}, status: 304},
		{name: "206", method: "GET", h: func(c *plinth.Ctx) error {
			c.Header().Set("Content-Range", "bytes 0-3999/8000")
			return c.Bytes(206, "text/plain", body)
		}, status: 206, body: body},
		{name: "pre-encoded", method: "GET", h: send("text/plain", body, "Content-Encoding", "gzip"), status: 200, body: body},
		{name: "no-transform", method: "GET", h: send("text/plain", body, "Cache-Control", "public, No-Transform"), status: 200, body: body},
		{name: "ServeContent range", method: "GET", reqHdr: []string{"Range", "bytes=10-19"}, h: func(c *plinth.Ctx) error {
			c.Header().Set("Content-Type", "text/plain")
			http.ServeContent(c.Writer(), c.Request(), "x.txt", zeroTime, bytes.NewReader(body))
			return nil
		}, status: 206, body: body[10:20]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(newApp(tt.h, compress.Config{}), tt.method, "gzip, br, zstd", tt.reqHdr...)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			want := "" // nobody compresses a pre-encoded body twice: it stays as it was
			if tt.name == "pre-encoded" {
				want = "gzip"
			}
			if got := rec.Header().Get("Content-Encoding"); got != want {
				t.Errorf("Content-Encoding %q, want %q", got, want)
			}
			if !bytes.Equal(rec.Body.Bytes(), tt.body) {
				t.Errorf("body: %d bytes, want %d untouched", rec.Body.Len(), len(tt.body))
			}
		})
	}
}

func TestHEADKeepsHeaders(t *testing.T) {
	body := text(4000, 2)
	rec := do(newApp(send("text/plain", body, "Content-Length", "4000"), compress.Config{}), "HEAD", "gzip")
	if rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Content-Length") != "4000" {
		t.Errorf("HEAD: Content-Encoding %q, Content-Length %q", rec.Header().Get("Content-Encoding"), rec.Header().Get("Content-Length"))
	}
	if rec.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("HEAD: Vary %q", rec.Header().Get("Vary"))
	}
}

func TestETag(t *testing.T) {
	body := text(4000, 4)
	tests := []struct{ etag, ae, want string }{
		{`"abc"`, "gzip", `W/"abc"`},
		{`W/"abc"`, "gzip", `W/"abc"`},
		{`"abc"`, "-", `"abc"`},
		{`"abc"`, "identity", `"abc"`},
	}
	for _, tt := range tests {
		rec := do(newApp(send("text/plain", body, "ETag", tt.etag), compress.Config{}), "GET", tt.ae)
		if got := rec.Header().Get("ETag"); got != tt.want {
			t.Errorf("ETag %s with Accept-Encoding %q: got %s, want %s", tt.etag, tt.ae, got, tt.want)
		}
	}
	// Small bodies keep their strong ETag: they are sent as they are.
	rec := do(newApp(send("text/plain", []byte("small"), "ETag", `"s"`), compress.Config{}), "GET", "gzip")
	if got := rec.Header().Get("ETag"); got != `"s"` {
		t.Errorf("small body: ETag %s", got)
	}
}

func TestAcceptRangesDropped(t *testing.T) {
	body := text(4000, 4)
	rec := do(newApp(send("text/plain", body, "Accept-Ranges", "bytes"), compress.Config{}), "GET", "gzip")
	if got := rec.Header().Get("Accept-Ranges"); got != "" {
		t.Errorf("Accept-Ranges %q on a compressed response", got)
	}
	rec = do(newApp(send("text/plain", body, "Accept-Ranges", "bytes"), compress.Config{}), "GET", "-")
	if got := rec.Header().Get("Accept-Ranges"); got != "bytes" {
		t.Errorf("Accept-Ranges %q on an uncompressed response", got)
	}
}

func TestHandlerErrorIsCompressedProblem(t *testing.T) {
	for _, coding := range codings {
		t.Run(coding, func(t *testing.T) {
			h := func(c *plinth.Ctx) error {
				return plinth.Error(http.StatusTeapot, "short and stout").With("padding", strings.Repeat("spout ", 300))
			}
			rec := do(newApp(h, compress.Config{}), "GET", coding)
			if rec.Code != http.StatusTeapot {
				t.Fatalf("status %d, want 418", rec.Code)
			}
			if got := rec.Header().Get("Content-Encoding"); got != coding {
				t.Fatalf("Content-Encoding %q, want %q", got, coding)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/problem+json" {
				t.Errorf("Content-Type %q", got)
			}
			var doc struct {
				Status int    `json:"status"`
				Detail string `json:"detail"`
			}
			if err := json.Unmarshal(decode(t, coding, rec.Body.Bytes()), &doc); err != nil {
				t.Fatalf("problem body: %v", err)
			}
			if doc.Status != 418 || doc.Detail != "short and stout" {
				t.Errorf("problem %+v", doc)
			}
		})
	}
	// A small problem is sent as it is, with Vary.
	rec := do(newApp(func(c *plinth.Ctx) error { return plinth.NotFound("no") }, compress.Config{}), "GET", "gzip")
	if rec.Code != 404 || rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("small problem: %d, Content-Encoding %q, Vary %q", rec.Code, rec.Header().Get("Content-Encoding"), rec.Header().Get("Vary"))
	}
	if !strings.Contains(rec.Body.String(), `"status":404`) {
		t.Errorf("small problem body %q", rec.Body.String())
	}
}

func TestErrorAfterPartialBody(t *testing.T) {
	// The handler started the response (still buffered here) and then
	// failed: the client gets what was written, not a problem glued to it.
	for _, size := range []int{10, 5000} {
		body := text(size, 9)
		h := func(c *plinth.Ctx) error {
			c.Header().Set("Content-Type", "text/plain")
			c.Writer().Write(body)
			return plinth.Error(500, "too late")
		}
		rec := do(newApp(h, compress.Config{}), "GET", "gzip")
		if rec.Code != 200 {
			t.Errorf("%d bytes: status %d, want 200", size, rec.Code)
		}
		if got := decode(t, rec.Header().Get("Content-Encoding"), rec.Body.Bytes()); !bytes.Equal(got, body) {
			t.Errorf("%d bytes: body %q", size, got)
		}
	}
}

func TestFallbacksCovered(t *testing.T) {
	// Use on the App wraps the 404 answer too.
	app := newApp(send("text/plain", nil), compress.Config{})
	req := httptest.NewRequest("GET", "/missing", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 404 || rec.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("404: status %d, Vary %q", rec.Code, rec.Header().Get("Vary"))
	}
}

func TestPanicLeavesRecoveryAWorkingWriter(t *testing.T) {
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	app.Use(compress.New(compress.Config{}))
	app.Get("/x", func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "text/plain")
		c.Writer().Write([]byte("partial"))
		panic("boom")
	})
	rec := do(app, "GET", "gzip")
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"status":500`) {
		t.Fatalf("status %d, body %q", rec.Code, rec.Body.String())
	}
	if strings.Contains(rec.Body.String(), "partial") {
		t.Errorf("the buffered partial body leaked into the 500: %q", rec.Body.String())
	}
	// The App keeps serving through its pools.
	app2 := newApp(send("text/plain", text(3000, 1)), compress.Config{})
	for range 3 {
		if rec := do(app2, "GET", "gzip"); rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatal("not compressed after a panic")
		}
	}
}

func TestInformationalPassesThrough(t *testing.T) {
	body := text(3000, 1)
	h := func(c *plinth.Ctx) error {
		c.Header().Set("Link", "</style.css>; rel=preload")
		c.Writer().WriteHeader(http.StatusEarlyHints)
		c.Header().Del("Link")
		return c.Bytes(200, "text/plain", body)
	}
	srv := httptest.NewServer(newApp(h, compress.Config{}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	var early int
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	ctx := withGot1xx(req.Context(), func(code int) { early = code })
	res, err := tr.RoundTrip(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if early != http.StatusEarlyHints {
		t.Errorf("1xx seen: %d", early)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(decode(t, "gzip", b), body) {
		t.Errorf("final response %d %q", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
}

func TestStreamingFlush(t *testing.T) {
	for _, coding := range append([]string{""}, codings...) {
		for _, via := range []string{"Flusher", "ResponseController"} {
			t.Run(coding+"/"+via, func(t *testing.T) {
				testStreaming(t, coding, via)
			})
		}
	}
}

// testStreaming checks that what the handler flushed reaches the client
// while the handler is still running: the handler waits for the client to
// read the first part before it writes the second.
func testStreaming(t *testing.T, coding, via string) {
	first := []byte("data: first event\n\n")
	second := []byte("data: second event\n\n")
	proceed := make(chan struct{})
	done := make(chan struct{})
	h := func(c *plinth.Ctx) error {
		defer close(done)
		c.Header().Set("Content-Type", "text/event-stream")
		w := c.Writer()
		if _, err := w.Write(first); err != nil {
			return err
		}
		if via == "Flusher" {
			w.(http.Flusher).Flush()
		} else if err := http.NewResponseController(w).Flush(); err != nil {
			return err
		}
		<-proceed
		_, err := w.Write(second)
		return err
	}
	srv := httptest.NewServer(newApp(h, compress.Config{}))
	defer srv.Close()
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
	if coding != "" {
		req.Header.Set("Accept-Encoding", coding)
	}
	res, err := tr.RoundTrip(req)
	if err != nil {
		close(proceed)
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got := res.Header.Get("Content-Encoding"); got != coding {
		close(proceed)
		t.Fatalf("Content-Encoding %q, want %q", got, coding)
	}
	var r io.Reader = res.Body
	switch coding {
	case compress.Gzip:
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			close(proceed)
			t.Fatal(err)
		}
		r = zr
	case compress.Brotli:
		r = brotli.NewReader(res.Body)
	case compress.Zstd:
		zr, err := zstd.NewReader(res.Body, zstd.WithDecoderConcurrency(1))
		if err != nil {
			close(proceed)
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	got := make([]byte, len(first))
	if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, first) {
		close(proceed)
		t.Fatalf("first part before the handler finished: %q, %v", got, err)
	}
	select {
	case <-done:
		t.Fatal("the handler finished before the client read the first part")
	default:
	}
	close(proceed)
	rest, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(rest, second) {
		t.Fatalf("second part %q, %v", rest, err)
	}
}

func TestLargeBodies(t *testing.T) {
	body := text(3<<20, 11) // beyond the zstd window (1 MiB) and many encoder blocks
	h := func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "application/json")
		for i := 0; i < len(body); i += 64 << 10 {
			if _, err := c.Writer().Write(body[i:min(i+64<<10, len(body))]); err != nil {
				return err
			}
		}
		return nil
	}
	app := newApp(h, compress.Config{})
	for _, coding := range codings {
		rec := do(app, "GET", coding)
		if rec.Header().Get("Content-Encoding") != coding {
			t.Fatalf("%s: not compressed", coding)
		}
		if got := decode(t, coding, rec.Body.Bytes()); !bytes.Equal(got, body) {
			t.Fatalf("%s: decoded %d bytes, want %d", coding, len(got), len(body))
		}
	}
}

func TestConcurrentRequestsKeepTheirOwnBodies(t *testing.T) {
	app := newApp(func(c *plinth.Ctx) error {
		id, _ := strconv.Atoi(c.Query("id"))
		return c.Bytes(200, "application/json", text(1000+id*37, uint64(id)))
	}, compress.Config{})
	srv := httptest.NewServer(app)
	defer srv.Close()
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	const workers, perWorker = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				id := w*perWorker + i
				coding := []string{"br", "zstd", "gzip", "identity"}[id%4]
				req, _ := http.NewRequest("GET", srv.URL+"/x?id="+strconv.Itoa(id), nil)
				req.Header.Set("Accept-Encoding", coding)
				res, err := client.Do(req)
				if err != nil {
					errs <- err
					continue
				}
				b, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					errs <- err
					continue
				}
				got := decode(t, res.Header.Get("Content-Encoding"), b)
				if want := text(1000+id*37, uint64(id)); !bytes.Equal(got, want) {
					errs <- fmt.Errorf("request %d (%s): got %d bytes, not its own body", id, coding, len(got))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHijack(t *testing.T) {
	h := func(c *plinth.Ctx) error {
		conn, brw, err := http.NewResponseController(c.Writer()).Hijack()
		if err != nil {
			return err
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		return brw.Flush()
	}
	srv := httptest.NewServer(newApp(h, compress.Config{}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "hijacked" {
		t.Errorf("body %q", b)
	}

	// Once compressing, the header has gone out: no hijack.
	var hijackErr error
	h2 := func(c *plinth.Ctx) error {
		c.Bytes(200, "text/plain", text(3000, 1))
		_, _, hijackErr = http.NewResponseController(c.Writer()).Hijack()
		return nil
	}
	srv2 := httptest.NewServer(newApp(h2, compress.Config{}))
	defer srv2.Close()
	req, _ = http.NewRequest("GET", srv2.URL+"/x", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err = tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if hijackErr != compress.ErrHijackCompressed {
		t.Errorf("Hijack while compressing: %v", hijackErr)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := map[string]compress.Config{
		"unknown coding":      {Encodings: []string{"deflate"}},
		"repeated coding":     {Encodings: []string{"gzip", "gzip"}},
		"too many":            {Encodings: []string{"gzip", "br", "zstd", "gzip"}},
		"gzip level":          {Levels: map[string]int{"gzip": 10}},
		"gzip level 0":        {Levels: map[string]int{"gzip": 0}},
		"br level":            {Levels: map[string]int{"br": 12}},
		"zstd level":          {Levels: map[string]int{"zstd": 0}},
		"level of unknown":    {Levels: map[string]int{"lzma": 3}},
		"unused coding level": {Encodings: []string{"br"}, Levels: map[string]int{"gzip": 42}},
		"negative min":        {MinSize: -1},
		"bad type":            {ContentTypes: []string{"text"}},
		"wildcard type":       {ContentTypes: []string{"*/*"}},
		"bad suffix":          {ContentTypes: []string{"application/*json"}},
		"empty type":          {ContentTypes: []string{""}},
	}
	for name, cfg := range tests {
		t.Run(name, func(t *testing.T) {
			err := cfg.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), "compress: Config.") {
				t.Fatalf("Validate() = %v, want an error starting with compress: Config.", err)
			}
			defer func() {
				p := recover()
				if p == nil {
					t.Fatal("New did not panic")
				}
				if s, ok := p.(string); !ok || !strings.HasPrefix(s, "compress: ") || s != err.Error() {
					t.Errorf("panic %v: want %q", p, err.Error())
				}
			}()
			compress.New(cfg)
		})
	}
	// And good ones do not; the zero value and empty lists are the defaults.
	good := compress.Config{Encodings: []string{"gzip", "br"}, Levels: map[string]int{"gzip": 9, "br": 0, "zstd": 22}, MinSize: 1, ContentTypes: []string{"text/*"}}
	for _, cfg := range []compress.Config{good, {}, {Encodings: []string{}, ContentTypes: []string{}}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
		compress.New(cfg)
	}
}

func TestLevels(t *testing.T) {
	body := text(20_000, 13)
	for _, tt := range []struct {
		coding string
		level  int
	}{{"gzip", 1}, {"gzip", 9}, {"br", 0}, {"br", 11}, {"zstd", 1}, {"zstd", 3}, {"zstd", 7}, {"zstd", 19}} {
		app := newApp(send("text/plain", body), compress.Config{Encodings: []string{tt.coding}, Levels: map[string]int{tt.coding: tt.level}})
		rec := do(app, "GET", "gzip, br, zstd")
		if got := decode(t, rec.Header().Get("Content-Encoding"), rec.Body.Bytes()); !bytes.Equal(got, body) ||
			rec.Header().Get("Content-Encoding") != tt.coding {
			t.Errorf("%s level %d: round trip failed", tt.coding, tt.level)
		}
	}
}

var zeroTime time.Time

// withGot1xx returns ctx with a client trace that reports 1xx responses.
func withGot1xx(ctx context.Context, f func(code int)) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		Got1xxResponse: func(code int, _ textproto.MIMEHeader) error { f(code); return nil },
	})
}

func TestHandlerTimeoutAnswerIsNotLabelled(t *testing.T) {
	// The default layer's timeout refuses writes after the deadline and
	// sends its own 503: it must not carry a Content-Encoding for a body
	// that is not encoded.
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	app.HandlerTimeout = 10 * time.Millisecond
	app.Use(compress.New(compress.Config{}))
	body := text(4000, 1)
	app.Get("/x", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		return c.Bytes(200, "application/json", body)
	})
	rec := do(app, "GET", "gzip")
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", rec.Code)
	}
	if got := rec.Header().Get("Content-Encoding"); got != "" {
		t.Errorf("Content-Encoding %q on the timeout's own answer", got)
	}
	if !strings.Contains(rec.Body.String(), `"status":503`) {
		t.Errorf("body %q", rec.Body.String())
	}
}

func TestServeContentIsCompressed(t *testing.T) {
	// http.ServeContent sets Content-Length and Accept-Ranges and copies
	// with io.CopyN, which reaches the writer's ReadFrom.
	body := text(100_000, 17)
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	app := newApp(func(c *plinth.Ctx) error {
		c.Header().Set("ETag", `"v7"`)
		http.ServeContent(c.Writer(), c.Request(), "data.txt", mod, bytes.NewReader(body))
		return nil
	}, compress.Config{})
	for _, coding := range codings {
		rec := do(app, "GET", coding)
		h := rec.Header()
		if h.Get("Content-Encoding") != coding || h.Get("Content-Length") != "" || h.Get("Accept-Ranges") != "" {
			t.Fatalf("%s: Content-Encoding %q, Content-Length %q, Accept-Ranges %q", coding,
				h.Get("Content-Encoding"), h.Get("Content-Length"), h.Get("Accept-Ranges"))
		}
		if h.Get("ETag") != `W/"v7"` || h.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s: ETag %q, Content-Type %q", coding, h.Get("ETag"), h.Get("Content-Type"))
		}
		if got := decode(t, coding, rec.Body.Bytes()); !bytes.Equal(got, body) {
			t.Fatalf("%s: body differs", coding)
		}
	}
	// The weak ETag still matches If-None-Match (weak comparison).
	rec := do(app, "GET", "gzip", "If-None-Match", `W/"v7"`)
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match with the weak tag: status %d, want 304", rec.Code)
	}
}

func TestContentLengthWithoutTypeIsSniffed(t *testing.T) {
	body := []byte("<!DOCTYPE html><html><body>" + strings.Repeat("<p>plinth</p>", 200) + "</body></html>")
	h := func(c *plinth.Ctx) error {
		c.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, err := io.Copy(c.Writer(), bytes.NewReader(body))
		return err
	}
	rec := do(newApp(h, compress.Config{}), "GET", "gzip")
	if rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("Content-Encoding %q, Content-Type %q", rec.Header().Get("Content-Encoding"), rec.Header().Get("Content-Type"))
	}
	if got := decode(t, "gzip", rec.Body.Bytes()); !bytes.Equal(got, body) {
		t.Fatal("body differs")
	}
}
