package compress_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/middleware/compress"
)

// TestWithETagMiddleware runs the catalogue's ETag inside the compressor,
// the order docs/middleware.md recommends: the tag is computed over the
// identity bytes, weakened when the body is encoded, and a revalidation with
// the weak tag gets its 304.
func TestWithETagMiddleware(t *testing.T) {
	body := text(5000, 3)
	app := plinth.Bare()
	app.Logger = slog.New(slog.DiscardHandler)
	app.Use(compress.New(compress.Config{}), middleware.ETag(middleware.ETagConfig{}))
	app.Get("/x", func(c *plinth.Ctx) error { return c.Bytes(200, "application/json", body) })

	for _, coding := range codings {
		rec := do(app, "GET", coding)
		tag := rec.Header().Get("ETag")
		if rec.Header().Get("Content-Encoding") != coding || !strings.HasPrefix(tag, `W/"`) {
			t.Fatalf("%s: Content-Encoding %q, ETag %q", coding, rec.Header().Get("Content-Encoding"), tag)
		}
		rec = do(app, "GET", coding, "If-None-Match", tag)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("%s: revalidation with %s: status %d, %d bytes", coding, tag, rec.Code, rec.Body.Len())
		}
		if rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("%s: 304 with Content-Encoding %q", coding, rec.Header().Get("Content-Encoding"))
		}
	}
	// Without a coding the tag stays strong.
	if tag := do(app, "GET", "-").Header().Get("ETag"); !strings.HasPrefix(tag, `"`) {
		t.Errorf("identity: ETag %q", tag)
	}
}
