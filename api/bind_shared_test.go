package api_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// The core's Ctx.Bind and api.Bind share their body handling
// (internal/bodybind): the same bad body gets the same status and detail
// from both.
func TestBindSharedWithCtxBind(t *testing.T) {
	type note struct {
		Text string `json:"text"`
	}
	type form struct {
		Title string `form:"title"`
	}
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	small := app.Group("/small")
	small.SetBodyLimit(32)
	for _, g := range []*plinth.Router{app.Router, small} {
		g.Post("/core", func(c *plinth.Ctx) error {
			var n note
			return c.Bind(&n)
		})
		g.Post("/api", func(c *plinth.Ctx) error {
			_, err := api.Bind[note](c)
			return err
		})
		g.Post("/coreform", func(c *plinth.Ctx) error {
			var f form
			return c.Bind(&f)
		})
		g.Post("/apiform", func(c *plinth.Ctx) error {
			_, err := api.Bind[form](c)
			return err
		})
	}
	send := func(path, ctype, body string, chunked bool) (int, string) {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		if chunked {
			req.ContentLength = -1
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		var p struct{ Detail string }
		_ = json.Unmarshal(rec.Body.Bytes(), &p)
		return rec.Code, p.Detail
	}
	for _, tc := range []struct {
		name, kind, ctype, body string
		prefix                  string
		chunked                 bool
		code                    int
	}{
		{"malformed", "", "application/json", `{"text":"a",}`, "", false, 400},
		{"truncated", "", "application/json", `{"text":`, "", false, 400},
		{"trailing", "", "application/json", `{"text":"a"} x`, "", false, 400},
		{"over the limit", "", "application/json", `{"text":"` + strings.Repeat("x", 64) + `"}`, "/small", true, 413},
		{"form malformed", "form", "application/x-www-form-urlencoded", "title=%zz", "", false, 400},
		{"multipart malformed", "form", "multipart/form-data; boundary=b", "--b\r\nbroken", "", false, 400},
		{"form over the limit", "form", "application/x-www-form-urlencoded", "title=" + strings.Repeat("x", 64), "/small", true, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc, cd := send(tc.prefix+"/core"+tc.kind, tc.ctype, tc.body, tc.chunked)
			ac, ad := send(tc.prefix+"/api"+tc.kind, tc.ctype, tc.body, tc.chunked)
			if cc != tc.code || ac != tc.code || cd != ad {
				t.Errorf("Ctx.Bind %d %q, api.Bind %d %q; want both %d with one detail", cc, cd, ac, ad, tc.code)
			}
		})
	}
}
