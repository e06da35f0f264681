package bench

// Benchmarks of the response compression middleware
// (github.com/plinth-go/plinth/middleware/compress), installed with
// UseNative on plinth.Bare() around one GET route that sends a 4 KiB JSON
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

var compressJSONType = []string{"application/json"}

// compressApp returns a Bare App serving compressJSON at GET /, through the
// compression middleware when with is set.
func compressApp(with bool) *plinth.App {
	app := plinth.Bare()
	if with {
		app.UseNative(compress.New())
	}
	app.Get("/", func(c *plinth.Ctx) error {
		c.Header()["Content-Type"] = compressJSONType
		_, err := c.Writer().Write(compressJSON)
		return err
	})
	app.Build()
	return app
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
			app := compressApp(tc.with)
			req := httptest.NewRequest("GET", "/", nil)
			if tc.ae != "" {
				req.Header.Set("Accept-Encoding", tc.ae)
			}
			// Check the response once: the coding, and the body decodes
			// to the document.
			cw := NewResponseWriter(true)
			app.ServeHTTP(cw, req)
			if got := cw.Header().Get("Content-Encoding"); got != tc.coding || cw.Status() != 200 {
				b.Fatalf("status %d, Content-Encoding %q, want %q", cw.Status(), got, tc.coding)
			}
			if got := decodeBody(b, tc.coding, cw.Body); !bytes.Equal(got, compressJSON) {
				b.Fatalf("decoded body differs (%d bytes)", len(got))
			}
			size := len(cw.Body)
			w := NewResponseWriter(false)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w.Reset()
				app.ServeHTTP(w, req)
			}
			b.ReportMetric(float64(size), "resp-bytes")
		})
	}
}

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
