package middleware

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// staticTestFiles is testdata/static, dotfiles included. style.css.gz and
// style.css.br are real encodings of style.css (made with gzip and with
// github.com/andybalholm/brotli at quality 11).
//
//go:embed all:testdata/static
var staticTestFiles embed.FS

func embeddedStatic(t testing.TB) fs.FS {
	sub, err := fs.Sub(staticTestFiles, "testdata/static")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func readTestdata(t testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata/static", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// staticTestApp mounts h three ways: Mount, a native wildcard route and a
// plain-handler wildcard route.
func staticTestApp(h *Static) *plinth.App {
	app := plinth.Bare()
	app.Mount("/assets", h)
	app.Get("/native/{path...}", h.Serve)
	app.Handle("GET /plain/{path...}", h)
	return app
}

func staticGet(h http.Handler, target string, hdr ...string) *httptest.ResponseRecorder {
	return condServe(h, http.MethodGet, target, hdr...)
}

func TestStaticServesFiles(t *testing.T) {
	for _, fsys := range []struct {
		name string
		fs   fs.FS
	}{{"dirfs", os.DirFS("testdata/static")}, {"embed", embeddedStatic(t)}} {
		app := staticTestApp(NewStatic(fsys.fs, StaticConfig{}))
		for _, prefix := range []string{"/assets", "/native", "/plain"} {
			t.Run(fsys.name+prefix, func(t *testing.T) {
				rec := staticGet(app, prefix+"/style.css")
				if rec.Code != 200 || rec.Body.String() != readTestdata(t, "style.css") {
					t.Fatalf("status %d, body %.40q", rec.Code, rec.Body)
				}
				h := rec.Header()
				if got := h.Get("Content-Type"); got != "text/css; charset=utf-8" {
					t.Errorf("Content-Type %q", got)
				}
				if got := h.Get("Content-Length"); got != strconv.Itoa(len(readTestdata(t, "style.css"))) {
					t.Errorf("Content-Length %q", got)
				}
				if h.Get("ETag") == "" || !strings.HasPrefix(h.Get("ETag"), `"`) {
					t.Errorf("ETag %q, want a strong tag", h.Get("ETag"))
				}
				if got := h.Get("Cache-Control"); got != DefaultStaticCacheControl {
					t.Errorf("Cache-Control %q", got)
				}
				if got := h.Get("Vary"); got != "Accept-Encoding" {
					t.Errorf("Vary %q", got)
				}
				if got := h.Get("Accept-Ranges"); got != "bytes" {
					t.Errorf("Accept-Ranges %q", got)
				}
			})
		}
	}
}

func TestStaticTraversal(t *testing.T) {
	secret := readTestdata(t, ".private/secret.txt")
	h := NewStatic(os.DirFS("testdata/static/docs"), StaticConfig{})
	app := staticTestApp(NewStatic(os.DirFS("testdata/static/docs"), StaticConfig{}))
	// Called directly, the handler sees the path as given.
	direct := []struct {
		path   string
		status int
	}{
		{"/../.private/secret.txt", 400},
		{"/../index.html", 400},
		{"/a/../../index.html", 400},
		{"/./index.html", 400},
		{"/..", 400},
		{`/..\index.html`, 400},
		{`/docs\..\index.html`, 400},
		{"/index.html\x00.png", 400},
		{"//etc/passwd", 400},
		{"/a//b", 400},
		{"/index.html", 200},
	}
	for _, tt := range direct {
		t.Run(fmt.Sprintf("direct %q", tt.path), func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			req.URL.Path = tt.path
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if tt.status == 400 && rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("Content-Type %q, want problem JSON", rec.Header().Get("Content-Type"))
			}
		})
	}
	// Through the router, as a client can send them: every answer must be
	// a refusal or a redirect that stays inside the tree, never the file.
	raw := []string{
		"/assets/../.private/secret.txt",
		"/assets/%2e%2e/.private/secret.txt",
		"/assets/%2e%2e%2f.private%2fsecret.txt",
		"/assets/..%2f.private%2fsecret.txt",
		"/assets/..%5c.private%5csecret.txt",
		"/assets/%00",
		"/native/..%2f.private%2fsecret.txt",
		"/native/%2e%2e/%2e%2e/etc/passwd",
		"/plain/..%5c..%5cetc%5cpasswd",
		"/plain/%2fetc%2fpasswd",
		"/native/%2fetc%2fpasswd",
	}
	for _, target := range raw {
		t.Run("routed "+target, func(t *testing.T) {
			rec := staticGet(app, target)
			if rec.Code == 200 || strings.Contains(rec.Body.String(), secret) || strings.Contains(rec.Body.String(), "root:") {
				t.Fatalf("status %d, body %q", rec.Code, rec.Body)
			}
			switch rec.Code {
			case 400, 404:
				if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
					t.Fatalf("status %d with Content-Type %q, want problem JSON", rec.Code, ct)
				}
			case 301, 307, 308: // the router cleans ".." with a redirect
				if loc := rec.Header().Get("Location"); strings.Contains(loc, "..") {
					t.Fatalf("redirect to %q", loc)
				}
			default:
				t.Fatalf("status %d", rec.Code)
			}
		})
	}
}

func TestStaticRootSymlinks(t *testing.T) {
	dir := t.TempDir()
	rootDir := filepath.Join(dir, "root")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{rootDir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(rootDir, "ok.txt"), "inside")
	write(filepath.Join(outside, "secret.txt"), "outside secret")
	links := map[string]string{
		"escape.txt": filepath.Join("..", "outside", "secret.txt"),
		"abs.txt":    filepath.Join(outside, "secret.txt"),
		"dirlink":    filepath.Join("..", "outside"),
		"inner.txt":  "ok.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(rootDir, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	app := staticTestApp(NewStaticRoot(root, StaticConfig{}))
	for _, tt := range []struct {
		path   string
		status int
		body   string
	}{
		{"/assets/ok.txt", 200, "inside"},
		{"/assets/inner.txt", 200, "inside"},
		{"/assets/escape.txt", 404, ""},
		{"/assets/abs.txt", 404, ""},
		{"/assets/dirlink/secret.txt", 404, ""},
		{"/native/dirlink/secret.txt", 404, ""},
	} {
		rec := staticGet(app, tt.path)
		if rec.Code != tt.status || strings.Contains(rec.Body.String(), "outside secret") {
			t.Errorf("%s: status %d, body %q; want %d", tt.path, rec.Code, rec.Body, tt.status)
		}
		if tt.body != "" && rec.Body.String() != tt.body {
			t.Errorf("%s: body %q, want %q", tt.path, rec.Body, tt.body)
		}
	}
	// For contrast, os.DirFS follows the link out: this is why NewStaticRoot
	// exists.
	if rec := staticGet(staticTestApp(NewStatic(os.DirFS(rootDir), StaticConfig{})), "/assets/escape.txt"); rec.Code != 200 {
		t.Logf("os.DirFS no longer follows escaping links (status %d)", rec.Code)
	}
}

func TestStaticDirectories(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/static")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "noindex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "noindex", "x.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	app := staticTestApp(NewStatic(os.DirFS(dir), StaticConfig{}))
	noIndex := staticTestApp(NewStatic(os.DirFS(dir), StaticConfig{NoIndex: true}))
	dotfiles := staticTestApp(NewStatic(os.DirFS(dir), StaticConfig{Dotfiles: true}))
	for _, tt := range []struct {
		name     string
		app      http.Handler
		path     string
		status   int
		body     string
		location string
	}{
		{"root index", app, "/assets/", 200, readTestdata(t, "index.html"), ""},
		{"root index native", app, "/native/", 200, readTestdata(t, "index.html"), ""},
		{"root index plain", app, "/plain/", 200, readTestdata(t, "index.html"), ""},
		{"subdirectory index", app, "/assets/docs/", 200, readTestdata(t, "docs/index.html"), ""},
		{"index by name", app, "/assets/docs/index.html", 200, readTestdata(t, "docs/index.html"), ""},
		{"slash added", app, "/assets/docs", 301, "", "./docs/"},
		{"slash added keeps the query", app, "/native/docs?x=1", 301, "", "./docs/?x=1"},
		{"no listing", app, "/assets/noindex/", 404, "", ""},
		{"no listing without slash", app, "/assets/noindex", 404, "", ""},
		{"file with a slash", app, "/assets/style.css/", 404, "", ""},
		{"missing", app, "/assets/nope.css", 404, "", ""},
		{"index off", noIndex, "/assets/", 404, "", ""},
		{"index off subdirectory", noIndex, "/assets/docs/", 404, "", ""},
		{"dotfile hidden", app, "/assets/.private/secret.txt", 404, "", ""},
		{"dot directory hidden", app, "/assets/.private/", 404, "", ""},
		{"dotfile allowed", dotfiles, "/assets/.private/secret.txt", 200, "secret\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := staticGet(tt.app, tt.path)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d (body %q)", rec.Code, tt.status, rec.Body)
			}
			if tt.body != "" && rec.Body.String() != tt.body {
				t.Errorf("body %q, want %q", rec.Body, tt.body)
			}
			if got := rec.Header().Get("Location"); got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			if tt.status == 404 {
				if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
					t.Errorf("Content-Type %q, want problem JSON", ct)
				}
				if cc := rec.Header().Get("Cache-Control"); cc != "" {
					t.Errorf("404 carries Cache-Control %q", cc)
				}
			}
		})
	}
}

func TestStaticPrecompressed(t *testing.T) {
	css := readTestdata(t, "style.css")
	br := readTestdata(t, "style.css.br")
	gz := readTestdata(t, "style.css.gz")
	for _, fsys := range []struct {
		name string
		fs   fs.FS
	}{{"dirfs", os.DirFS("testdata/static")}, {"embed", embeddedStatic(t)}} {
		app := staticTestApp(NewStatic(fsys.fs, StaticConfig{}))
		for _, tt := range []struct {
			ae       string
			encoding string
		}{
			{"", ""},
			{"gzip", "gzip"},
			{"br", "br"},
			{"gzip, br", "br"},
			{"gzip, deflate, br, zstd", "br"},
			{"br;q=0.5, gzip", "gzip"},
			{"br;q=0.5, gzip;q=0.8", "gzip"},
			{"br;q=0, gzip;q=0", ""},
			{"br;q=0", ""},
			{"*", "br"},
			{"*;q=0", ""},
			{"br;q=0, *", "gzip"},
			{"identity", ""},
			{"x-gzip", "gzip"},
			{"GZIP", "gzip"},
			{" br ; q=1.0 ", "br"},
			{"br;q=abc, gzip", "gzip"},
			{"br;q=2, gzip", "gzip"},
			{"zstd", ""},
			{",,;q=1,", ""},
		} {
			t.Run(fsys.name+" "+tt.ae, func(t *testing.T) {
				var rec *httptest.ResponseRecorder
				if tt.ae == "" {
					rec = staticGet(app, "/assets/style.css")
				} else {
					rec = staticGet(app, "/assets/style.css", "Accept-Encoding", tt.ae)
				}
				h := rec.Header()
				if rec.Code != 200 || h.Get("Content-Encoding") != tt.encoding {
					t.Fatalf("status %d, Content-Encoding %q, want %q", rec.Code, h.Get("Content-Encoding"), tt.encoding)
				}
				want := map[string]string{"": css, "br": br, "gzip": gz}[tt.encoding]
				if rec.Body.String() != want {
					t.Fatalf("body is not the %q representation", tt.encoding)
				}
				if h.Get("Content-Type") != "text/css; charset=utf-8" || h.Get("Vary") != "Accept-Encoding" {
					t.Errorf("Content-Type %q, Vary %q", h.Get("Content-Type"), h.Get("Vary"))
				}
				if h.Get("Content-Length") != strconv.Itoa(len(want)) {
					t.Errorf("Content-Length %q, want %d", h.Get("Content-Length"), len(want))
				}
			})
		}
	}

	app := staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{}))
	identity := staticGet(app, "/assets/style.css").Header().Get("ETag")
	gzRec := staticGet(app, "/assets/style.css", "Accept-Encoding", "gzip")
	t.Run("gzip decodes to the file", func(t *testing.T) {
		zr, err := gzip.NewReader(gzRec.Body)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil || string(b) != css {
			t.Fatalf("decoded %d bytes, %v", len(b), err)
		}
	})
	t.Run("each representation has its own tag", func(t *testing.T) {
		if tag := gzRec.Header().Get("ETag"); tag == "" || tag == identity {
			t.Fatalf("gzip tag %q, identity tag %q", tag, identity)
		}
		rec := staticGet(app, "/assets/style.css", "Accept-Encoding", "gzip", "If-None-Match", gzRec.Header().Get("ETag"))
		if rec.Code != 304 {
			t.Fatalf("status %d, want 304", rec.Code)
		}
		if rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("304 headers %v", rec.Header())
		}
		if rec := staticGet(app, "/assets/style.css", "If-None-Match", gzRec.Header().Get("ETag")); rec.Code != 200 {
			t.Fatalf("identity with the gzip tag: status %d, want 200", rec.Code)
		}
	})
	t.Run("Range gets the identity", func(t *testing.T) {
		rec := staticGet(app, "/assets/style.css", "Accept-Encoding", "br, gzip", "Range", "bytes=0-3")
		if rec.Code != 206 || rec.Body.String() != css[:4] || rec.Header().Get("Content-Encoding") != "" {
			t.Fatalf("status %d, body %q, Content-Encoding %q", rec.Code, rec.Body, rec.Header().Get("Content-Encoding"))
		}
		if rec.Header().Get("ETag") != identity || rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("ETag %q, Vary %q", rec.Header().Get("ETag"), rec.Header().Get("Vary"))
		}
	})
	t.Run("no siblings", func(t *testing.T) {
		rec := staticGet(app, "/assets/data.bin", "Accept-Encoding", "br, gzip")
		if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "" || rec.Body.Len() != 1024 {
			t.Fatalf("status %d, Content-Encoding %q", rec.Code, rec.Header().Get("Content-Encoding"))
		}
	})
	t.Run("off", func(t *testing.T) {
		rec := staticGet(staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{NoPrecompressed: true})), "/assets/style.css", "Accept-Encoding", "br, gzip")
		if rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Vary") != "" || rec.Body.String() != css {
			t.Fatalf("Content-Encoding %q, Vary %q", rec.Header().Get("Content-Encoding"), rec.Header().Get("Vary"))
		}
	})
	t.Run("gzip only", func(t *testing.T) {
		rec := staticGet(staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{Precompressed: []string{"gzip"}})), "/assets/style.css", "Accept-Encoding", "br, gzip")
		if rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("Content-Encoding %q", rec.Header().Get("Content-Encoding"))
		}
	})
}

func TestStaticRanges(t *testing.T) {
	data := readTestdata(t, "data.bin")
	app := staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{}))
	tag := staticGet(app, "/assets/data.bin").Header().Get("ETag")
	t.Run("single", func(t *testing.T) {
		rec := staticGet(app, "/assets/data.bin", "Range", "bytes=10-19")
		if rec.Code != 206 || rec.Body.String() != data[10:20] {
			t.Fatalf("status %d, body %q", rec.Code, rec.Body)
		}
		if got := rec.Header().Get("Content-Range"); got != "bytes 10-19/1024" {
			t.Fatalf("Content-Range %q", got)
		}
	})
	t.Run("suffix", func(t *testing.T) {
		rec := staticGet(app, "/assets/data.bin", "Range", "bytes=-4")
		if rec.Code != 206 || rec.Body.String() != data[1020:] {
			t.Fatalf("status %d", rec.Code)
		}
	})
	t.Run("unsatisfiable", func(t *testing.T) {
		rec := staticGet(app, "/assets/data.bin", "Range", "bytes=5000-6000")
		if rec.Code != 416 || rec.Header().Get("Content-Range") != "bytes */1024" {
			t.Fatalf("status %d, Content-Range %q", rec.Code, rec.Header().Get("Content-Range"))
		}
		if rec.Header().Get("ETag") != "" || rec.Header().Get("Cache-Control") != "" {
			t.Fatalf("416 keeps the file's caching headers: %v", rec.Header())
		}
	})
	t.Run("multi", func(t *testing.T) {
		rec := staticGet(app, "/assets/data.bin", "Range", "bytes=0-1,100-103")
		if rec.Code != 206 {
			t.Fatalf("status %d", rec.Code)
		}
		mt, params, err := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		if err != nil || mt != "multipart/byteranges" {
			t.Fatalf("Content-Type %q", rec.Header().Get("Content-Type"))
		}
		mr := multipart.NewReader(rec.Body, params["boundary"])
		var parts []string
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(p)
			parts = append(parts, p.Header.Get("Content-Range")+"="+string(b))
		}
		want := []string{"bytes 0-1/1024=" + data[0:2], "bytes 100-103/1024=" + data[100:104]}
		if fmt.Sprint(parts) != fmt.Sprint(want) {
			t.Fatalf("parts %q, want %q", parts, want)
		}
	})
	t.Run("If-Range current", func(t *testing.T) {
		rec := staticGet(app, "/assets/data.bin", "Range", "bytes=0-0", "If-Range", tag)
		if rec.Code != 206 {
			t.Fatalf("status %d", rec.Code)
		}
	})
	t.Run("If-Range stale", func(t *testing.T) {
		rec := staticGet(app, "/assets/data.bin", "Range", "bytes=0-0", "If-Range", `"stale"`)
		if rec.Code != 200 || rec.Body.Len() != 1024 {
			t.Fatalf("status %d", rec.Code)
		}
	})
}

func TestStaticConditional(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "page.html")
	if err := os.WriteFile(name, []byte("<p>v1</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(name, mod, mod); err != nil {
		t.Fatal(err)
	}
	app := staticTestApp(NewStatic(os.DirFS(dir), StaticConfig{}))
	rec := staticGet(app, "/assets/page.html")
	tag := rec.Header().Get("ETag")
	wantTag := `"` + strconv.FormatUint(uint64(mod.UnixNano()), 16) + "-9" + `"`
	if tag != wantTag {
		t.Fatalf("ETag %q, want %q", tag, wantTag)
	}
	if got := rec.Header().Get("Last-Modified"); got != mod.Format(http.TimeFormat) {
		t.Fatalf("Last-Modified %q", got)
	}
	for _, tt := range []struct {
		name   string
		hdr    []string
		status int
	}{
		{"If-None-Match", []string{"If-None-Match", tag}, 304},
		{"If-None-Match weak", []string{"If-None-Match", "W/" + tag}, 304},
		{"If-None-Match other", []string{"If-None-Match", `"x"`}, 200},
		{"If-Modified-Since same", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}, 304},
		{"If-Modified-Since later", []string{"If-Modified-Since", mod.Add(time.Hour).Format(http.TimeFormat)}, 304},
		{"If-Modified-Since earlier", []string{"If-Modified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}, 200},
		{"If-None-Match wins over If-Modified-Since", []string{"If-None-Match", `"x"`, "If-Modified-Since", mod.Format(http.TimeFormat)}, 200},
		{"If-Match other", []string{"If-Match", `"x"`}, 412},
		{"If-Unmodified-Since earlier", []string{"If-Unmodified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}, 412},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := staticGet(app, "/assets/page.html", tt.hdr...)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if rec.Code == 304 {
				if rec.Body.Len() != 0 || rec.Header().Get("ETag") != tag || rec.Header().Get("Cache-Control") != "no-cache" {
					t.Fatalf("304: body %q, headers %v", rec.Body, rec.Header())
				}
			}
		})
	}
	t.Run("a change changes the tag", func(t *testing.T) {
		if err := os.WriteFile(name, []byte("<p>v2!</p>"), 0o644); err != nil {
			t.Fatal(err)
		}
		rec := staticGet(app, "/assets/page.html", "If-None-Match", tag)
		if rec.Code != 200 || rec.Body.String() != "<p>v2!</p>" || rec.Header().Get("ETag") == tag {
			t.Fatalf("status %d, body %q, ETag %q", rec.Code, rec.Body, rec.Header().Get("ETag"))
		}
	})
}

func TestStaticEmbed(t *testing.T) {
	app := staticTestApp(NewStatic(embeddedStatic(t), StaticConfig{}))
	css := readTestdata(t, "style.css")
	rec := staticGet(app, "/assets/style.css")
	tag := rec.Header().Get("ETag")
	if want := etagTagOf(css); tag != want {
		t.Fatalf("ETag %q, want the content hash %q", tag, want)
	}
	if rec.Header().Get("Last-Modified") != "" {
		t.Fatalf("Last-Modified %q for a file without a modification time", rec.Header().Get("Last-Modified"))
	}
	if rec := staticGet(app, "/assets/style.css", "If-None-Match", tag); rec.Code != 304 {
		t.Fatalf("status %d, want 304", rec.Code)
	}
	if rec := staticGet(app, "/assets/style.css", "If-Modified-Since", time.Now().UTC().Format(http.TimeFormat)); rec.Code != 200 {
		t.Fatalf("If-Modified-Since without Last-Modified: status %d, want 200", rec.Code)
	}
	if rec := staticGet(app, "/assets/.private/secret.txt"); rec.Code != 404 {
		t.Fatalf("dotfile: status %d", rec.Code)
	}
}

// noSeekFS hands out files that cannot seek, as some fs.FS do.
type noSeekFS struct{ fstest.MapFS }

type noSeekFile struct{ f fs.File }

func (f noSeekFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f noSeekFile) Read(b []byte) (int, error) { return f.f.Read(b) }
func (f noSeekFile) Close() error               { return f.f.Close() }

func (n noSeekFS) Open(name string) (fs.File, error) {
	f, err := n.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return noSeekFile{f}, nil
}

func TestStaticNoSeek(t *testing.T) {
	fsys := noSeekFS{fstest.MapFS{"a.txt": {Data: []byte("hello, world")}}}
	app := staticTestApp(NewStatic(fsys, StaticConfig{}))
	if rec := staticGet(app, "/assets/a.txt", "Range", "bytes=7-"); rec.Code != 206 || rec.Body.String() != "world" {
		t.Fatalf("status %d, body %q", rec.Code, rec.Body)
	}
}

func TestStaticCaching(t *testing.T) {
	app := staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{}))
	for _, tt := range []struct{ path, want string }{
		{"/assets/app.3f9a1c2b.js", ImmutableCacheControl},
		{"/assets/style.css", "no-cache"},
		{"/assets/index.html", "no-cache"},
		{"/assets/app.4f9a1c2b.js", ""}, // missing: a 404 is not cached for a year
	} {
		if got := staticGet(app, tt.path).Header().Get("Cache-Control"); got != tt.want {
			t.Errorf("%s: Cache-Control %q, want %q", tt.path, got, tt.want)
		}
	}
	custom := staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{
		CacheControl: "public, max-age=60",
		Immutable:    func(name string) bool { return strings.HasSuffix(name, ".css") },
	}))
	if got := staticGet(custom, "/assets/style.css").Header().Get("Cache-Control"); got != ImmutableCacheControl {
		t.Errorf("custom matcher: %q", got)
	}
	if got := staticGet(custom, "/assets/app.3f9a1c2b.js").Header().Get("Cache-Control"); got != "public, max-age=60" {
		t.Errorf("custom default: %q", got)
	}
	none := staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{OmitCacheControl: true, Immutable: func(string) bool { return false }}))
	if got := staticGet(none, "/assets/app.3f9a1c2b.js").Header()["Cache-Control"]; got != nil {
		t.Errorf("caching off: %q", got)
	}
	// An outer middleware's choice is kept.
	outer := plinth.Bare()
	outer.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			c.Header().Set("Cache-Control", "private")
			return next(c)
		}
	})
	outer.Mount("/assets", NewStatic(os.DirFS("testdata/static"), StaticConfig{}))
	if got := staticGet(outer, "/assets/app.3f9a1c2b.js").Header().Get("Cache-Control"); got != "private" {
		t.Errorf("outer Cache-Control replaced: %q", got)
	}
}

func TestHashedName(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"app.3f9a1c2b.js", true},
		{"assets/app.3f9a1c2b.js", true},
		{"main.3f9a1c2b.chunk.js", true},
		{"app-3F9A1C2B.js", true},
		{"app-QAGHVNOD.js", false}, // base32 without a digit: missed, on the safe side
		{"app-Q5GHVN2D.js", true},
		{"index-BjC8nQ2x.js", true},
		{"index-B-x_8aZ1.js", true},
		{"app.3f9a1c2b4d5e6f70.css.map", true},
		{"app.js", false},
		{"app.min.js", false},
		{"jquery-3.7.1.min.js", false},
		{"logo-2024.png", false},
		{"report-20241130.pdf", false},
		{"release2024.txt", false},
		{"about-Section12.html", false},
		{"deadbeef.js", false},
		{"3f9a1c2b.js", false}, // the first part is the name
		{"chunk.deadbeef.js", false},
		{"app.3f9a1c2.js", false}, // 7 characters
		{"app.3F9a1C2b.js", false},
		{"", false},
	} {
		if got := HashedName(tt.name); got != tt.want {
			t.Errorf("HashedName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestStaticMethods(t *testing.T) {
	app := staticTestApp(NewStatic(os.DirFS("testdata/static"), StaticConfig{}))
	t.Run("HEAD", func(t *testing.T) {
		rec := condServe(app, "HEAD", "/assets/style.css")
		if rec.Code != 200 || rec.Body.Len() != 0 {
			t.Fatalf("status %d, %d body bytes", rec.Code, rec.Body.Len())
		}
		if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(readTestdata(t, "style.css"))) {
			t.Fatalf("Content-Length %q", got)
		}
		if rec.Header().Get("ETag") == "" {
			t.Fatal("no ETag")
		}
	})
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		t.Run(m, func(t *testing.T) {
			rec := condServe(app, m, "/assets/style.css")
			if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
				t.Fatalf("status %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
			}
			if rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("Content-Type %q", rec.Header().Get("Content-Type"))
			}
		})
	}
}

func TestStaticErrorRenderer(t *testing.T) {
	h := NewStatic(os.DirFS("testdata/static"), StaticConfig{})
	app := plinth.Bare()
	app.ErrorHandler = func(c *plinth.Ctx, err error) {
		_ = c.Text(http.StatusTeapot, "custom: "+err.Error())
	}
	app.Mount("/assets", h)
	app.Get("/native/{path...}", h.Serve)
	app.Handle("GET /plain/{path...}", h)
	for _, p := range []string{"/assets/nope", "/native/nope", "/plain/nope"} {
		rec := staticGet(app, p)
		if rec.Code != http.StatusTeapot || !strings.HasPrefix(rec.Body.String(), "custom: 404") {
			t.Errorf("%s: status %d, body %q", p, rec.Code, rec.Body)
		}
	}
	// Outside Plinth: the built-in problem renderer.
	rec := staticGet(h, "/nope")
	if rec.Code != 404 || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	// With the standard library's mux.
	mux := http.NewServeMux()
	mux.Handle("GET /files/{path...}", h)
	mux.Handle("/s/", http.StripPrefix("/s", h))
	for _, p := range []string{"/files/style.css", "/s/style.css"} {
		if rec := staticGet(mux, p); rec.Code != 200 || rec.Body.String() != readTestdata(t, "style.css") {
			t.Errorf("%s: status %d", p, rec.Code)
		}
	}
}

// TestStaticWithETag checks that the ETag middleware leaves the file
// server's own tags alone and still answers for them.
func TestStaticWithETag(t *testing.T) {
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{}))
	app.Mount("/assets", NewStatic(embeddedStatic(t), StaticConfig{}))
	rec := staticGet(app, "/assets/style.css")
	tag := rec.Header().Get("ETag")
	if tag != etagTagOf(readTestdata(t, "style.css")) {
		t.Fatalf("ETag %q", tag)
	}
	if rec := staticGet(app, "/assets/style.css", "If-None-Match", tag); rec.Code != 304 {
		t.Fatalf("status %d", rec.Code)
	}
	if rec := staticGet(app, "/assets/data.bin", "Range", "bytes=0-9"); rec.Code != 206 || rec.Body.Len() != 10 {
		t.Fatalf("range through ETag: status %d", rec.Code)
	}
}

// TestStaticVaryMerged: Accept-Encoding joins a Vary set by an outer layer
// in one header line, once.
func TestStaticVaryMerged(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before []string // Vary lines set before Static runs
		want   []string
	}{
		{"none", nil, []string{"Accept-Encoding"}},
		{"one line", []string{"Origin"}, []string{"Origin, Accept-Encoding"}},
		{"two lines", []string{"Origin", "Cookie"}, []string{"Origin, Cookie, Accept-Encoding"}},
		{"present", []string{"Origin, accept-encoding"}, []string{"Origin, accept-encoding"}},
		{"present in a second line", []string{"Origin", "Accept-Encoding"}, []string{"Origin, Accept-Encoding"}},
		{"star", []string{"*"}, []string{"*"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app := plinth.Bare()
			app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
				return func(c *plinth.Ctx) error {
					for _, v := range tt.before {
						c.Header().Add("Vary", v)
					}
					return next(c)
				}
			})
			app.Mount("/assets", NewStatic(embeddedStatic(t), StaticConfig{}))
			for _, ae := range []string{"", "br"} {
				rec := staticGet(app, "/assets/style.css", "Accept-Encoding", ae)
				if got := rec.Header()["Vary"]; rec.Code != 200 || !slices.Equal(got, tt.want) {
					t.Errorf("Accept-Encoding %q: status %d, Vary %q, want %q", ae, rec.Code, got, tt.want)
				}
			}
		})
	}
}

func TestStaticConcurrent(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"style.css", "index.html", "data.bin", "app.3f9a1c2b.js", "docs/index.html"} {
		files[n] = readTestdata(t, n)
	}
	gz := readTestdata(t, "style.css.gz")
	for _, fsys := range []fs.FS{os.DirFS("testdata/static"), embeddedStatic(t)} {
		app := staticTestApp(NewStatic(fsys, StaticConfig{}))
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 100 {
					for name, want := range files {
						rec := staticGet(app, "/assets/"+name)
						if rec.Code != 200 || rec.Body.String() != want {
							t.Errorf("%s: status %d", name, rec.Code)
							return
						}
					}
					if (g+i)%2 == 0 {
						rec := staticGet(app, "/native/style.css", "Accept-Encoding", "gzip")
						if !bytes.Equal(rec.Body.Bytes(), []byte(gz)) {
							t.Error("gzip sibling mismatch")
							return
						}
					}
				}
			})
		}
		wg.Wait()
	}
}

func TestStaticAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under -race")
	}
	app := plinth.Bare()
	app.Mount("/assets", NewStatic(embeddedStatic(t), StaticConfig{}))
	app.Get("/native/{path...}", NewStatic(embeddedStatic(t), StaticConfig{}).Serve)
	// Under CORS, Accept-Encoding is merged into CORS's Vary: Origin; the
	// merge is remembered, so it costs nothing per request.
	cors := app.Group("/cors")
	cors.Use(CORS(CORSConfig{AllowedOrigins: []string{"https://app.example"}}))
	cors.Get("/{path...}", NewStatic(embeddedStatic(t), StaticConfig{}).Serve)
	for _, tt := range []struct {
		name, path, inm, ae string
		budget              float64
	}{
		{"native 200", "/native/style.css", "", "", 10},
		{"native 304", "/native/style.css", etagTagOf(readTestdata(t, "style.css")), "", 6},
		{"native 200, Vary merged", "/cors/style.css", "", "", 10},
		{"native 200, precompressed", "/native/style.css", "", "gzip;q=0.8, deflate, br;q=0.9, zstd", 12},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.inm != "" {
				req.Header.Set("If-None-Match", tt.inm)
			}
			if tt.ae != "" {
				req.Header.Set("Accept-Encoding", tt.ae)
			}
			w := &etagDiscardWriter{h: http.Header{}}
			app.ServeHTTP(w, req)
			got := testing.AllocsPerRun(200, func() {
				clear(w.h)
				app.ServeHTTP(w, req)
			})
			t.Logf("%v allocations per request", got)
			if got > tt.budget {
				t.Fatalf("%v allocations per request, budget %v", got, tt.budget)
			}
		})
	}
}

func ExampleNewStatic() {
	assets := fstest.MapFS{"hello.txt": {Data: []byte("hello\n")}}
	app := plinth.Bare()
	app.Mount("/assets", NewStatic(assets, StaticConfig{}))

	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/assets/hello.txt", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
	// Output: 200 text/plain; charset=utf-8 no-cache
}

// TestStaticWithDefaults runs Static and ETag under plinth.New()'s default
// layer: problems carry the request ID, files and 304s pass unchanged.
func TestStaticWithDefaults(t *testing.T) {
	app := plinth.New()
	app.Use(ETag(ETagConfig{}))
	app.Mount("/assets", NewStatic(os.DirFS("testdata/static"), StaticConfig{}))
	app.Get("/json", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, "dynamic") })
	rec := staticGet(app, "/assets/nope.txt")
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), `"request_id":`) {
		t.Fatalf("status %d, body %q", rec.Code, rec.Body)
	}
	rec = staticGet(app, "/assets/style.css")
	if rec.Code != 200 || rec.Body.String() != readTestdata(t, "style.css") {
		t.Fatalf("status %d", rec.Code)
	}
	if rec := staticGet(app, "/assets/style.css", "If-None-Match", rec.Header().Get("ETag")); rec.Code != 304 {
		t.Fatalf("file: status %d, want 304", rec.Code)
	}
	rec = staticGet(app, "/json")
	if rec := staticGet(app, "/json", "If-None-Match", rec.Header().Get("ETag")); rec.Code != 304 || rec.Header().Get("X-Content-Type-Options") == "" {
		t.Fatalf("dynamic: status %d, headers %v", rec.Code, rec.Header())
	}
}

func TestStaticBadConfig(t *testing.T) {
	for name, f := range map[string]func(){
		"nil fs":   func() { NewStatic(nil, StaticConfig{}) },
		"nil root": func() { NewStaticRoot(nil, StaticConfig{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	// Invalid configurations: Validate names the field, and NewStatic
	// panics with the same message.
	for _, tc := range []struct {
		name string
		cfg  StaticConfig
		want string // substring of the error
	}{
		{"unknown coding", StaticConfig{Precompressed: []string{"br", "deflate"}}, `Precompressed: unknown encoding "deflate"`},
		{"bad parameter", StaticConfig{Param: "path..."}, `Param "path..."`},
		{"braced parameter", StaticConfig{Param: "{path}"}, `Param "{path}"`},
		{"index and no index", StaticConfig{Index: "home.html", NoIndex: true}, "NoIndex"},
		{"cache control and omit", StaticConfig{CacheControl: "max-age=60", OmitCacheControl: true}, "OmitCacheControl"},
		{"precompressed and none", StaticConfig{Precompressed: []string{"br"}, NoPrecompressed: true}, "NoPrecompressed"},
	} {
		err := tc.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "StaticConfig.") {
			t.Errorf("%s: Validate() = %v, want an error naming the field and %q", tc.name, err, tc.want)
			continue
		}
		func() {
			defer func() {
				if p := recover(); p != err.Error() {
					t.Errorf("%s: NewStatic panicked with %v, want %q", tc.name, p, err.Error())
				}
			}()
			NewStatic(fstest.MapFS{}, tc.cfg)
		}()
	}
	// The zero value, and each switch alone, are valid; "" is the default
	// parameter name.
	for _, cfg := range []StaticConfig{{}, {NoIndex: true}, {OmitCacheControl: true}, {NoPrecompressed: true}, {Param: ""}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	// A custom wildcard name.
	app := plinth.Bare()
	app.Get("/f/{file...}", NewStatic(os.DirFS("testdata/static"), StaticConfig{Param: "file"}).Serve)
	if rec := staticGet(app, "/f/index.html"); rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
}
