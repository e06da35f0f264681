package compress_test

import (
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

// agreementCases are Accept-Encoding fields on which hand-written parsers
// tend to differ, with the coding both sides must pick from zstd, br and
// gzip (in that order of preference); "" for none.
var agreementCases = []struct {
	field []string
	want  string
}{
	{nil, ""},
	{[]string{""}, ""},
	{[]string{"gzip, deflate, br, zstd"}, "zstd"},
	{[]string{"br;q=0.9, br;q=0.5, gzip;q=0.8"}, "br"},   // a coding named twice: the first weight
	{[]string{"br;q=0.5, br;q=0.9, gzip;q=0.8"}, "gzip"}, // ... even when a later one is higher
	{[]string{"br, br;q=0, gzip"}, "gzip"},               // ... unless one of them is q=0
	{[]string{"br;q=0, br, gzip;q=0.1"}, "gzip"},
	{[]string{"br;q=0.4", "gzip;q=0.5, br"}, "gzip"}, // across field lines
	{[]string{"x-gzip;q=0.3, gzip;q=0.9, br;q=0.2"}, "gzip"},
	{[]string{"gzip, x-gzip;q=0"}, ""},
	{[]string{"*;q=0.5, zstd;q=0"}, "br"},
	{[]string{"*, *;q=0"}, ""},
	{[]string{"*;q=0, identity"}, ""},
	{[]string{"identity;q=0"}, ""},
	{[]string{"br;q=1.5, gzip"}, "gzip"},             // malformed q: the element is ignored
	{[]string{"br;q=high, *;q=0.2"}, "zstd"},         // ... and "*" covers br again
	{[]string{"gzip;q=0;q=1, br;q=0.1"}, "br"},       // q given twice: malformed
	{[]string{"ZSTD;Q=0.001, Br;q=0.002"}, "br"},     // names and q are case-insensitive
	{[]string{"br\t;\tq=0.7 , gzip ; q=0.70"}, "br"}, // a tie: the server's order
	{[]string{"deflate, compress"}, ""},
	{[]string{`"br", gzíp, zstd;q=0.`}, ""},
}

// TestStaticAgreesWithCompress serves the same field to the catalogue's
// Static (choosing a precompressed sibling) and to this middleware
// (choosing a coding for a dynamic body), both offering zstd, br and gzip in
// that order: they read Accept-Encoding with one parser and must pick the
// same coding.
func TestStaticAgreesWithCompress(t *testing.T) {
	staticApp, compressApp := agreementApps()
	for _, tc := range agreementCases {
		s, c := agreementPicks(staticApp, compressApp, tc.field)
		if s != c || s != tc.want {
			t.Errorf("Accept-Encoding %q: Static sent %q, compress %q; want %q", tc.field, s, c, tc.want)
		}
	}
}

// FuzzStaticAgreesWithCompress: any field, split over two lines.
func FuzzStaticAgreesWithCompress(f *testing.F) {
	for _, tc := range agreementCases {
		if len(tc.field) > 0 {
			f.Add(tc.field[0], "")
		}
	}
	f.Add("br;q=0.9", "br;q=0, gzip")
	staticApp, compressApp := agreementApps()
	f.Fuzz(func(t *testing.T, line1, line2 string) {
		field := []string{line1, line2}
		if s, c := agreementPicks(staticApp, compressApp, field); s != c {
			t.Fatalf("Accept-Encoding %q: Static sent %q, compress %q", field, s, c)
		}
	})
}

const agreementBody = "Static and compress read Accept-Encoding alike. "

func agreementApps() (staticApp, compressApp *plinth.App) {
	order := []string{compress.Zstd, compress.Brotli, compress.Gzip}
	fsys := fstest.MapFS{
		"a.txt":     {Data: []byte(strings.Repeat(agreementBody, 50))},
		"a.txt.zst": {Data: []byte("zstd")},
		"a.txt.br":  {Data: []byte("br")},
		"a.txt.gz":  {Data: []byte("gzip")},
	}
	staticApp = plinth.Bare()
	staticApp.Logger = slog.New(slog.DiscardHandler)
	staticApp.Mount("/files", middleware.NewStatic(fsys, middleware.StaticConfig{Precompressed: order}))
	compressApp = newApp(func(c *plinth.Ctx) error {
		return c.Text(http.StatusOK, strings.Repeat(agreementBody, 50))
	}, compress.Config{Encodings: order})
	return staticApp, compressApp
}

// agreementPicks returns the Content-Encoding each app answers field with.
func agreementPicks(staticApp, compressApp *plinth.App, field []string) (static, compressed string) {
	get := func(app *plinth.App, target string) string {
		req := httptest.NewRequest("GET", target, nil)
		if field != nil {
			req.Header["Accept-Encoding"] = field
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			return "status " + rec.Result().Status
		}
		return rec.Header().Get("Content-Encoding")
	}
	return get(staticApp, "/files/a.txt"), get(compressApp, "/x")
}
