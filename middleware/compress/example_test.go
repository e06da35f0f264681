package compress_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware/compress"
)

func ExampleNew() {
	app := plinth.Bare()
	app.Use(compress.New(compress.Config{
		Encodings: []string{compress.Zstd, compress.Gzip}, // no brotli: cheaper CPU
		Levels:    map[string]int{compress.Gzip: 6},
	}))
	app.Get("/report", func(c *plinth.Ctx) error {
		return c.Text(200, strings.Repeat("all systems nominal\n", 100))
	})

	req := httptest.NewRequest("GET", "/report", nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	fmt.Println(rec.Header().Get("Content-Encoding"), rec.Header().Get("Vary"), rec.Body.Len() < 2000)
	// Output: zstd Accept-Encoding true
}
