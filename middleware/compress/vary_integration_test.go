package compress_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/middleware/compress"
)

// TestVaryOneLineStacked stacks CORS, compression, ETag and static files on
// one App and checks, over a real connection, that every response carries
// exactly one Vary header line naming each of its fields once.
func TestVaryOneLineStacked(t *testing.T) {
	css := strings.Repeat("body { color: #123456; margin: 0 auto; }\n", 100)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(css))
	zw.Close()
	files := fstest.MapFS{
		"app.css":     {Data: []byte(css)}, // compressed on the fly
		"site.css":    {Data: []byte(css)}, // served precompressed
		"site.css.gz": {Data: gz.Bytes()},
	}
	body := []byte(`{"items":[` + strings.Repeat(`{"id":1,"name":"plinth"},`, 100) + `{}]}`)

	app := plinth.Bare()
	app.Logger = slog.New(slog.DiscardHandler)
	app.Use(
		middleware.CORS(middleware.CORSConfig{AllowedOrigins: []string{"https://app.example", "https://*.example.co.uk"}}),
		compress.New(compress.Config{}),
		middleware.ETag(middleware.ETagConfig{}),
	)
	app.Get("/static/{path...}", middleware.NewStatic(files, middleware.StaticConfig{}).Serve)
	app.Get("/api", func(c *plinth.Ctx) error { return c.Bytes(200, "application/json", body) })
	app.Get("/api/lang", func(c *plinth.Ctx) error {
		c.Header().Add("Vary", "Accept-Language") // a second line, beside CORS's
		return c.Bytes(200, "application/json", body)
	})
	srv := httptest.NewServer(app)
	defer srv.Close()

	get := func(method, path string, hdr ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}

	tests := []struct {
		name         string
		method, path string
		hdr          []string
		status       int
		coding       string
		want         []string // the Vary members, in order
	}{
		{"static, compressed, allowed origin", "GET", "/static/app.css", []string{"Accept-Encoding", "gzip", "Origin", "https://app.example"}, 200, "gzip", []string{"Origin", "Accept-Encoding"}},
		{"static, wildcard origin", "GET", "/static/app.css", []string{"Accept-Encoding", "br", "Origin", "https://a.example.co.uk"}, 200, "br", []string{"Origin", "Accept-Encoding"}},
		{"static, precompressed", "GET", "/static/site.css", []string{"Accept-Encoding", "gzip", "Origin", "https://app.example"}, 200, "gzip", []string{"Origin", "Accept-Encoding"}},
		{"static, identity, no origin", "GET", "/static/app.css", []string{"Accept-Encoding", "identity"}, 200, "", []string{"Origin", "Accept-Encoding"}},
		{"static, 304", "GET", "/static/app.css", []string{"Accept-Encoding", "gzip", "Origin", "https://app.example", "If-None-Match", "*"}, 304, "", []string{"Origin", "Accept-Encoding"}},
		{"dynamic, compressed", "GET", "/api", []string{"Accept-Encoding", "zstd", "Origin", "https://app.example"}, 200, "zstd", []string{"Origin", "Accept-Encoding"}},
		{"dynamic, disallowed origin", "GET", "/api", []string{"Accept-Encoding", "gzip", "Origin", "https://evil.co.uk"}, 200, "gzip", []string{"Origin", "Accept-Encoding"}},
		{"dynamic, handler's own line folded", "GET", "/api/lang", []string{"Accept-Encoding", "gzip", "Origin", "https://app.example"}, 200, "gzip", []string{"Origin", "Accept-Language", "Accept-Encoding"}},
		{"preflight", "OPTIONS", "/api", []string{"Origin", "https://app.example", "Access-Control-Request-Method", "GET"}, 204, "", []string{"Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := get(tt.method, tt.path, tt.hdr...)
			if res.StatusCode != tt.status || res.Header.Get("Content-Encoding") != tt.coding {
				t.Fatalf("status %d, Content-Encoding %q; want %d, %q", res.StatusCode, res.Header.Get("Content-Encoding"), tt.status, tt.coding)
			}
			lines := res.Header["Vary"]
			if len(lines) != 1 {
				t.Fatalf("%d Vary lines %q, want one", len(lines), lines)
			}
			var got []string
			for m := range strings.SplitSeq(lines[0], ",") {
				got = append(got, strings.TrimSpace(m))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Vary %q, want the members %q, each once", lines[0], tt.want)
			}
		})
	}
}
