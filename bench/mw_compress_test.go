package bench

// Benchmarks of the response compression middleware
// (github.com/plinth-go/plinth/middleware/compress), installed with
// Use on plinth.Bare() around one GET route that sends a 4 KiB JSON
// document, once per coding the client asks for (br, zstd, gzip) and once
// with no Accept-Encoding (the pass-through path); BenchmarkCompress/baseline
// is the same route without the middleware. Each reports the body size the
// client receives as "resp-bytes". Run:
//
//	cd bench && go test -run '^$' -bench 'Compress' -benchmem -benchtime 200ms -count 5
//
// The figures (and the machine: a noisy 2-core shared VM) are in
// docs/middleware.md and in the package's doc comment.

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/middleware/compress"
)

// compressJSON is a 4 KiB JSON document shaped like an API list response.
var compressJSON = func() []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 4096-160; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item %d","owner":"user-%d","active":%t,"tags":["alpha","beta"]}`,
			1000+i, i, i%7, i%3 == 0)
	}
	b.WriteString(`],"next":null}`)
	for b.Len() < 4096 {
		b.WriteByte(' ')
	}
	return b.Bytes()[:4096]
}()

// compressApp returns a Bare App serving body as contentType at GET /,
// through the compression middleware built with cfg when with is set.
func compressApp(with bool, body []byte, contentType string, cfg compress.Config) *plinth.App {
	app := plinth.Bare()
	if with {
		app.Use(compress.New(cfg))
	}
	ct := []string{contentType}
	app.Get("/", func(c *plinth.Ctx) error {
		c.Header()["Content-Type"] = ct
		_, err := c.Writer().Write(body)
		return err
	})
	app.Build()
	return app
}

// benchCompressed checks one response of app to a request accepting ae
// (coding expected, body decoding to want), then times the route and
// reports the size of the body the client receives.
func benchCompressed(b *testing.B, app *plinth.App, ae, coding string, want []byte) {
	req := httptest.NewRequest("GET", "/", nil)
	if ae != "" {
		req.Header.Set("Accept-Encoding", ae)
	}
	cw := suite.NewResponseWriter(true)
	app.ServeHTTP(cw, req)
	if got := cw.Header().Get("Content-Encoding"); got != coding || cw.Status() != 200 {
		b.Fatalf("status %d, Content-Encoding %q, want %q", cw.Status(), got, coding)
	}
	if got := decodeBody(b, coding, cw.Body); !bytes.Equal(got, want) {
		b.Fatalf("decoded body differs (%d bytes)", len(got))
	}
	size := len(cw.Body)
	w := suite.NewResponseWriter(false)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Reset()
		app.ServeHTTP(w, req)
	}
	b.ReportMetric(float64(size), "resp-bytes")
}

func BenchmarkCompress(b *testing.B) {
	cases := []struct {
		name, ae, coding string
		with             bool
	}{
		{"baseline", "", "", false},
		{"identity", "", "", true}, // no Accept-Encoding: pass-through
		{"gzip", "gzip", "gzip", true},
		{"br", "br", "br", true},
		{"zstd", "zstd", "zstd", true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			benchCompressed(b, compressApp(tc.with, compressJSON, "application/json", compress.Config{}), tc.ae, tc.coding, compressJSON)
		})
	}
}

// BenchmarkCompressLevels is the evidence for compress's default levels and
// order (docs/middleware.md, "Compression"): each coding at the default
// level and its neighbours, on three bodies, time per response and the
// bytes sent. Run: bench/run-catalogue.sh.
func BenchmarkCompressLevels(b *testing.B) {
	bodies := []struct {
		name, contentType string
		body              []byte
	}{
		{"json-4k", "application/json", compressJSON},
		{"json-64k", "application/json", compressJSON64K},
		{"html-16k", "text/html; charset=utf-8", compressHTML},
	}
	levels := []struct {
		coding string
		level  int
	}{
		{compress.Gzip, 1}, {compress.Gzip, 5}, {compress.Gzip, 9},
		{compress.Brotli, 1}, {compress.Brotli, 3}, {compress.Brotli, 4}, {compress.Brotli, 6},
		{compress.Zstd, 1}, {compress.Zstd, 3},
	}
	for _, body := range bodies {
		for _, l := range levels {
			b.Run(fmt.Sprintf("%s/%s-level%d", body.name, l.coding, l.level), func(b *testing.B) {
				app := compressApp(true, body.body, body.contentType, compress.Config{
					Encodings: []string{l.coding},
					Levels:    map[string]int{l.coding: l.level},
				})
				benchCompressed(b, app, l.coding, l.coding, body.body)
			})
		}
	}
}

// compressJSON64K is 64 KiB of the same list shape as compressJSON.
var compressJSON64K = func() []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 64<<10-160; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item %d","owner":"user-%d","active":%t,"score":%d.%d,"tags":["alpha","beta"]}`,
			1000+i, i, i%97, i%3 == 0, i*7919%1000, i%10)
	}
	b.WriteString(`],"next":null}`)
	return b.Bytes()
}()

// compressHTML is about 16 KiB of a page: a table of rows with links.
var compressHTML = func() []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html lang=en><head><meta charset=utf-8><title>Orders</title>" +
		"<link rel=stylesheet href=/assets/app.3f9a1c2b.css></head><body><main><h1>Orders</h1><table>")
	for i := 0; b.Len() < 16<<10-40; i++ {
		fmt.Fprintf(&b, `<tr class="row-%d"><td><a href="/orders/%d">Order %d</a></td><td>%d items</td><td>€%d.%02d</td></tr>`,
			i%2, 5000+i, 5000+i, 1+i%9, 10+i*37%400, i*13%100)
	}
	b.WriteString("</table></main></body></html>")
	return b.Bytes()
}()

func decodeBody(b *testing.B, coding string, body []byte) []byte {
	var r io.Reader = bytes.NewReader(body)
	switch coding {
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			b.Fatal(err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(r)
	case "zstd":
		zr, err := zstd.NewReader(r)
		if err != nil {
			b.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	out, err := io.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
