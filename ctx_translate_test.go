package plinth_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// upper is a Translator for the tests: the key in capitals, the language
// from the query.
type upper struct{}

func (upper) Translate(c *plinth.Ctx, key string, args ...any) string {
	b := []byte(key)
	for i, ch := range b {
		if ch >= 'a' && ch <= 'z' {
			b[i] = ch - 'a' + 'A'
		}
	}
	return string(b)
}

func (upper) Language(c *plinth.Ctx) string { return c.Query("lang") }

func TestCtxTranslate(t *testing.T) {
	app := plinth.Bare()
	var got []string
	app.Get("/none", func(c *plinth.Ctx) error {
		got = []string{c.T("hello"), c.T("%d items", 3), c.Language()}
		return nil
	})
	app.Get("/with", func(c *plinth.Ctx) error {
		c.SetTranslator(&upper{})
		c.SetTranslator(upper{}) // replaces
		got = []string{c.T("hello"), c.Language()}
		c.SetTranslator(nil)
		got = append(got, c.T("hello"))
		return nil
	})
	serve(app, "GET", "/none")
	if want := []string{"hello", "3 items", ""}; !equalStrings(got, want) {
		t.Errorf("without a translator: %q, want %q", got, want)
	}
	serve(app, "GET", "/with?lang=fr")
	if want := []string{"HELLO", "fr", "hello"}; !equalStrings(got, want) {
		t.Errorf("with a translator: %q, want %q", got, want)
	}
	serve(app, "GET", "/none") // the pooled Ctx forgot it
	if want := []string{"hello", "3 items", ""}; !equalStrings(got, want) {
		t.Errorf("next request: %q, want %q", got, want)
	}
}

// TestCtxTranslateAllocations: installing a pointer Translator and asking
// for a key costs nothing beyond what the Translator itself allocates.
func TestCtxTranslateAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	tr := &fixed{}
	app := plinth.Bare()
	app.Get("/", func(c *plinth.Ctx) error {
		c.SetTranslator(tr)
		_ = c.T("hello")
		_ = c.Language()
		return nil
	})
	app.Get("/plain", func(c *plinth.Ctx) error {
		_ = c.T("hello")
		return nil
	})
	for _, target := range []string{"/", "/plain"} {
		req := httptest.NewRequest("GET", target, nil)
		w := &discardWriter{h: http.Header{}}
		app.ServeHTTP(w, req)
		if n := testing.AllocsPerRun(200, func() { app.ServeHTTP(w, req) }); n != 0 {
			t.Errorf("%s: %v allocs, want 0", target, n)
		}
	}
}

type fixed struct{}

func (*fixed) Translate(c *plinth.Ctx, key string, args ...any) string { return "bonjour" }
func (*fixed) Language(c *plinth.Ctx) string                           { return "fr" }

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
