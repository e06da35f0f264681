package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
	"github.com/plinth-go/plinth/web"
)

// catalogues are the tests' en, fr and de messages; fr and de lack
// "only.en", and fr has validation messages the others lack.
var catalogues = map[string]string{
	"en.json": `{
  "hello": "Hello",
  "greet": "Hello, %s!",
  "cart.items": {"=0": "Your cart is empty", "one": "%d item", "other": "%d items"},
  "only.en": "English only"
}`,
	"fr.json": `{
  "hello": "Bonjour",
  "greet": "Bonjour, %s !",
  "cart.items": {"one": "%d article", "other": "%d articles"},
  "validation.required": "est obligatoire",
  "validation.min": "doit valoir au moins %s"
}`,
	"de.json": `{
  "hello": "Hallo",
  "greet": "Hallo, %s!",
  "cart.items": {"one": "%d Artikel", "other": "%d Artikel"}
}`,
	"README.md": "not a catalogue",
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, body := range files {
		m[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return m
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newLocales(t *testing.T, cfg web.LocalesConfig) *web.Locales {
	t.Helper()
	if cfg.Files == nil {
		cfg.Files = mapFS(catalogues)
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	l, err := web.NewLocales(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// localeApp answers "<language>|<hello>" and the Vary it set.
func localeApp(l *web.Locales) *plinth.App {
	app := plinth.Bare()
	app.Use(l.Middleware())
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, c.Language()+"|"+c.T("hello")) })
	return app
}

func TestLocaleNegotiation(t *testing.T) {
	app := localeApp(newLocales(t, web.LocalesConfig{}))
	tests := []struct {
		name, query, cookie, accept string
		want                        string
		vary                        bool // Accept-Language decided
	}{
		{name: "nothing: the default", want: "en|Hello", vary: true},
		{name: "accept exact", accept: "fr", want: "fr|Bonjour", vary: true},
		{name: "region fallback en-GB", accept: "en-GB", want: "en|Hello", vary: true},
		{name: "region fallback fr-CA", accept: "fr-CA,fr;q=0.9", want: "fr|Bonjour", vary: true},
		{name: "region fallback de-CH", accept: "de-CH, en;q=0.5", want: "de|Hallo", vary: true},
		{name: "unsupported: the default", accept: "ja", want: "en|Hello", vary: true},
		{name: "unsupported first, then fr", accept: "ja, fr;q=0.5", want: "fr|Bonjour", vary: true},
		{name: "q-values order", accept: "fr;q=0.1, de;q=0.9", want: "de|Hallo", vary: true},
		{name: "q=0 refuses", accept: "en;q=0, fr", want: "fr|Bonjour", vary: true},
		{name: "wildcard: the default", accept: "*", want: "en|Hello", vary: true},
		{name: "malformed: the default", accept: "fr;q=2;;=", want: "en|Hello", vary: true},
		{name: "cookie over accept", cookie: "de", accept: "fr", want: "de|Hallo"},
		{name: "unsupported cookie ignored", cookie: "xx", accept: "fr", want: "fr|Bonjour", vary: true},
		{name: "query over cookie", query: "fr", cookie: "de", accept: "en", want: "fr|Bonjour"},
		{name: "query regional", query: "fr-CA", want: "fr|Bonjour"},
		{name: "query case", query: "DE", want: "de|Hallo"},
		{name: "unsupported query ignored", query: "ja", cookie: "de", want: "de|Hallo"},
	}
	for _, tc := range tests {
		target := "/"
		if tc.query != "" {
			target += "?lang=" + url.QueryEscape(tc.query)
		}
		req := httptest.NewRequest("GET", target, nil)
		if tc.cookie != "" {
			req.AddCookie(&http.Cookie{Name: "lang", Value: tc.cookie})
		}
		if tc.accept != "" {
			req.Header.Set("Accept-Language", tc.accept)
		}
		// Twice: the second answer comes from the Accept-Language cache.
		for range 2 {
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Body.String() != tc.want {
				t.Errorf("%s: %q, want %q", tc.name, rec.Body, tc.want)
			}
			if got := rec.Header().Get("Vary") == "Accept-Language"; got != tc.vary {
				t.Errorf("%s: Vary %q", tc.name, rec.Header().Get("Vary"))
			}
		}
	}
}

func TestLocaleLazy(t *testing.T) {
	l := newLocales(t, web.LocalesConfig{})
	app := plinth.Bare()
	app.Use(l.Middleware())
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "no text") })
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Language", "fr")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if v := rec.Header().Get("Vary"); v != "" {
		t.Errorf("a request that asked for no text negotiated (Vary %q)", v)
	}
}

func TestLocaleConfig(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cfg       web.LocalesConfig
		languages []string
		accept    string
		want      string
	}{
		{"default en when present", web.LocalesConfig{}, []string{"en", "de", "fr"}, "ja", "en|Hello"},
		{"Default", web.LocalesConfig{Default: "fr"}, []string{"fr", "de", "en"}, "ja", "fr|Bonjour"},
		{"Languages restrict", web.LocalesConfig{Languages: []string{"de", "en"}}, []string{"de", "en"}, "fr, en;q=0.5", "en|Hello"},
		{"Languages first is the default", web.LocalesConfig{Languages: []string{"de", "en"}}, []string{"de", "en"}, "ja", "de|Hallo"},
		{"Param off", web.LocalesConfig{Param: "-"}, []string{"en", "de", "fr"}, "", "en|Hello"},
	} {
		l := newLocales(t, tc.cfg)
		if got := l.Languages(); !slices.Equal(got, tc.languages) {
			t.Errorf("%s: Languages %q, want %q", tc.name, got, tc.languages)
		}
		req := httptest.NewRequest("GET", "/?lang=de", nil)
		if tc.cfg.Param != "-" {
			req = httptest.NewRequest("GET", "/", nil)
		}
		if tc.accept != "" {
			req.Header.Set("Accept-Language", tc.accept)
		}
		rec := httptest.NewRecorder()
		localeApp(l).ServeHTTP(rec, req)
		if rec.Body.String() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, rec.Body, tc.want)
		}
	}
	sub := fstest.MapFS{"locales/en.json": {Data: []byte(`{"hello":"Hi"}`)}}
	l := newLocales(t, web.LocalesConfig{Files: sub, Dir: "locales"})
	if got := l.Text("en", "hello"); got != "Hi" {
		t.Errorf("Dir: %q", got)
	}
}

func TestLocaleMessages(t *testing.T) {
	l := newLocales(t, web.LocalesConfig{})
	for _, tc := range []struct {
		lang, key string
		args      []any
		want      string
	}{
		{"en", "greet", []any{"Ada"}, "Hello, Ada!"},
		{"fr", "greet", []any{"Ada"}, "Bonjour, Ada !"},
		{"fr", "only.en", nil, "English only"},               // missing: the default's
		{"de", "no.such.key", nil, "no.such.key"},            // unknown: the key
		{"de", "%d things", []any{2}, "2 things"},            // unknown, with args: formatted
		{"en", "greet", nil, "Hello, %s!"},                   // no args: as written
		{"xx", "hello", nil, "Hello"},                        // unsupported language: the default
		{"fr-BE", "hello", nil, "Bonjour"},                   // brought to fr by the matcher
		{"en", "cart.items", []any{0}, "Your cart is empty"}, // exact form
		{"en", "cart.items", []any{1}, "1 item"},
		{"en", "cart.items", []any{2}, "2 items"},
		{"en", "cart.items", []any{int64(-1)}, "-1 item"},
		{"en", "cart.items", []any{uint8(5)}, "5 items"},
		{"en", "cart.items", []any{1.5}, "%!d(float64=1.5) items"}, // the form is right; the verb is the catalogue's
		{"fr", "cart.items", []any{0}, "0 article"},                // French: one for 0 and 1
		{"fr", "cart.items", []any{1}, "1 article"},
		{"fr", "cart.items", []any{2}, "2 articles"},
		{"de", "cart.items", []any{"x", 1}, "%!d(string=x) Artikel%!(EXTRA int=1)"}, // the first numeric arg picks
		{"en", "cart.items", nil, "%d items"},
	} {
		if got := l.Text(tc.lang, tc.key, tc.args...); got != tc.want {
			t.Errorf("%s %s %v: %q, want %q", tc.lang, tc.key, tc.args, got, tc.want)
		}
	}
}

func TestLocalePluralForms(t *testing.T) {
	files := map[string]string{
		"en.json": `{"n": {"one": "one", "other": "other"}}`,
		"fr.json": `{"n": {"one": "one", "other": "other"}}`,
		"ru.json": `{"n": {"one": "one", "few": "few", "many": "many", "other": "other"}}`,
		"ar.json": `{"n": {"zero": "zero", "one": "one", "two": "two", "few": "few", "many": "many", "other": "other"}}`,
		"ja.json": `{"n": {"other": "other"}}`,
	}
	l := newLocales(t, web.LocalesConfig{Files: mapFS(files)})
	for _, tc := range []struct {
		lang string
		n    any
		want string
	}{
		{"en", 0, "other"}, {"en", 1, "one"}, {"en", 2, "other"}, {"en", 1.0, "one"}, {"en", 1.5, "other"},
		{"fr", 0, "one"}, {"fr", 1, "one"}, {"fr", 1.5, "one"}, {"fr", 2, "other"},
		{"ru", 1, "one"}, {"ru", 2, "few"}, {"ru", 5, "many"}, {"ru", 11, "many"}, {"ru", 21, "one"}, {"ru", 22, "few"}, {"ru", 1.5, "other"},
		{"ar", 0, "zero"}, {"ar", 1, "one"}, {"ar", 2, "two"}, {"ar", 3, "few"}, {"ar", 11, "many"}, {"ar", 100, "other"},
		{"ja", 1, "other"},
	} {
		if got := l.Text(tc.lang, "n", tc.n); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.lang, tc.n, got, tc.want)
		}
	}
}

// captureHandler records log records.
type captureHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func (h *captureHandler) keys(level slog.Level, lang string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		if r.Level != level {
			continue
		}
		attrs := map[string]string{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		if attrs["language"] == lang {
			out = append(out, attrs["key"])
		}
	}
	return out
}

func TestLocaleMissingKeys(t *testing.T) {
	h := &captureHandler{}
	newLocales(t, web.LocalesConfig{Logger: slog.New(h)})
	if got, want := h.keys(slog.LevelWarn, "de"), []string{"only.en"}; !slices.Equal(got, want) {
		t.Errorf("de: warned about %q, want %q", got, want)
	}
	if got, want := h.keys(slog.LevelWarn, "fr"), []string{"only.en", "validation.min", "validation.required"}; !slices.Equal(got, want) {
		t.Errorf("fr: warned about %q, want %q", got, want)
	}
	_, err := web.NewLocales(web.LocalesConfig{Files: mapFS(catalogues), StrictKeys: true, Logger: quiet()})
	if err == nil {
		t.Fatal("StrictKeys: no error")
	}
	for _, want := range []string{`de.json lacks "only.en"`, `fr.json lacks "only.en"`, `fr.json has "validation.min", "validation.required", which en.json lacks`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("StrictKeys: %v\nwant it to say %s", err, want)
		}
	}
	same := map[string]string{"en.json": `{"a":"A"}`, "fr.json": `{"a":"À"}`}
	if _, err := web.NewLocales(web.LocalesConfig{Files: mapFS(same), StrictKeys: true}); err != nil {
		t.Errorf("StrictKeys with matching catalogues: %v", err)
	}
}

func TestLocaleBadCatalogues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		cfg   web.LocalesConfig
		want  string
	}{
		{"syntax", map[string]string{"en.json": "{\n  \"a\": \"A\",\n  \"b\": oops\n}"}, web.LocalesConfig{}, "en.json:3: invalid character 'o'"},
		{"not an object", map[string]string{"en.json": `["a"]`}, web.LocalesConfig{}, "en.json:1: a catalogue is a JSON object"},
		{"number message", map[string]string{"en.json": "{\n\"a\": 3}"}, web.LocalesConfig{}, `en.json:2: message "a": a message is a string or an object of plural forms`},
		{"array message", map[string]string{"en.json": `{"a": ["x"]}`}, web.LocalesConfig{}, `en.json:1: message "a": a message is a string`},
		{"duplicate", map[string]string{"fr.json": "{\"a\": \"x\",\n\"a\": \"y\"}"}, web.LocalesConfig{}, `fr.json:2: message "a" given twice`},
		{"plural without other", map[string]string{"de.json": `{"n": {"one": "x"}}`}, web.LocalesConfig{}, `de.json:1: message "n": plural forms need "other"`},
		{"bad plural form", map[string]string{"en.json": "{\"n\": {\n\"several\": \"x\", \"other\": \"y\"}}"}, web.LocalesConfig{}, `en.json:2: message "n": "several" is not a plural form`},
		{"plural form not a string", map[string]string{"en.json": `{"n": {"one": 1, "other": "y"}}`}, web.LocalesConfig{}, `en.json:1: message "n": plural form "one" is not a string`},
		{"syntax in plural", map[string]string{"en.json": "{\"n\": {\"one\": \"x\",\n \"other\" \"y\"}}"}, web.LocalesConfig{}, "en.json:2: invalid character"},
		{"trailing text", map[string]string{"en.json": `{"a": "A"} {}`}, web.LocalesConfig{}, "en.json:1: text after the catalogue's object"},
		{"truncated", map[string]string{"en.json": `{"a": "A"`}, web.LocalesConfig{}, "en.json:1: unexpected EOF"},
		{"file name", map[string]string{"english.json": `{}`}, web.LocalesConfig{}, "english.json: the file name is not a BCP 47 language tag"},
		{"no catalogue", map[string]string{"x.txt": ``}, web.LocalesConfig{}, `no catalogue (*.json) in "."`},
		{"language without file", map[string]string{"en.json": `{}`}, web.LocalesConfig{Languages: []string{"en", "it"}}, "LocalesConfig.Languages names it, which has no catalogue (it.json)"},
		{"default not listed", map[string]string{"en.json": `{}`, "fr.json": `{}`}, web.LocalesConfig{Languages: []string{"en"}, Default: "fr"}, "LocalesConfig.Default fr is not among LocalesConfig.Languages"},
		{"missing dir", map[string]string{"en.json": `{}`}, web.LocalesConfig{Dir: "locales"}, "web: locales: open locales"},
		{"bad Default", map[string]string{"en.json": `{}`}, web.LocalesConfig{Default: "not a tag!"}, `LocalesConfig.Default: "not a tag!" is not a BCP 47 language tag`},
		{"bad language", map[string]string{"en.json": `{}`}, web.LocalesConfig{Languages: []string{"en", "e n"}}, `LocalesConfig.Languages: "e n" is not a BCP 47 language tag`},
	} {
		cfg := tc.cfg
		cfg.Files, cfg.Logger = mapFS(tc.files), quiet()
		_, err := web.NewLocales(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

func TestLocaleConfigPanics(t *testing.T) {
	for name, cfg := range map[string]web.LocalesConfig{
		"nil Files":  {},
		"bad Param":  {Files: mapFS(catalogues), Param: "a b"},
		"bad Cookie": {Files: mapFS(catalogues), Cookie: "a;b"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			_, _ = web.NewLocales(cfg)
		}()
	}
}

func TestLocaleSwitchHandler(t *testing.T) {
	l := newLocales(t, web.LocalesConfig{})
	app := plinth.Bare()
	app.Use(l.Middleware())
	app.Post("/lang", l.SwitchHandler())
	app.Get("/lang", l.SwitchHandler())
	for _, tc := range []struct {
		name, method, target, form, referer string
		status                              int
		cookie, location                    string
	}{
		{"post", "POST", "/lang", "lang=fr", "", 303, "fr", "/"},
		{"post next", "POST", "/lang", "lang=de&next=%2Faccount%3Ftab%3D2", "", 303, "de", "/account?tab=2"},
		{"post off-site next", "POST", "/lang", "lang=de&next=%2F%2Fevil.example", "", 303, "de", "/"},
		{"post backslash next", "POST", "/lang", "lang=de&next=%2F%5Cevil.example", "", 303, "de", "/"},
		{"referer same host", "POST", "/lang", "lang=fr", "http://example.com/shop?page=2", 303, "fr", "/shop?page=2"},
		{"referer other host", "POST", "/lang", "lang=fr", "http://evil.example/x", 303, "fr", "/"},
		{"get", "GET", "/lang?lang=en&next=/about", "", "", 303, "en", "/about"},
		{"regional", "GET", "/lang?lang=fr-CA", "", "", 303, "fr", "/"},
		{"unsupported", "POST", "/lang", "lang=ja", "", 400, "", ""},
		{"none", "POST", "/lang", "", "", 400, "", ""},
	} {
		var body io.Reader
		if tc.form != "" {
			body = strings.NewReader(tc.form)
		}
		req := httptest.NewRequest(tc.method, tc.target, body)
		if tc.form != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if tc.referer != "" {
			req.Header.Set("Referer", tc.referer)
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != tc.status || rec.Header().Get("Location") != tc.location {
			t.Errorf("%s: %d Location %q, want %d %q (%s)", tc.name, rec.Code, rec.Header().Get("Location"), tc.status, tc.location, rec.Body)
		}
		cookies := rec.Result().Cookies()
		if tc.cookie == "" {
			if len(cookies) != 0 {
				t.Errorf("%s: set %v", tc.name, cookies)
			}
			continue
		}
		if len(cookies) != 1 {
			t.Fatalf("%s: cookies %v", tc.name, cookies)
		}
		ck := cookies[0]
		if ck.Name != "lang" || ck.Value != tc.cookie || ck.Path != "/" || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.MaxAge != 365*24*3600 || ck.Secure {
			t.Errorf("%s: cookie %+v", tc.name, ck)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SwitchHandler without a cookie: no panic")
		}
	}()
	newLocales(t, web.LocalesConfig{Cookie: "-"}).SwitchHandler()
}

func TestLocaleAPIMessage(t *testing.T) {
	l := newLocales(t, web.LocalesConfig{})
	msg := l.APIMessage()
	for _, tc := range []struct {
		accept, code, param, want string
	}{
		{"fr", "required", "", "est obligatoire"},
		{"fr", "min", "3", "doit valoir au moins 3"},
		{"fr", "maxLength", "10", ""}, // no key: api's English default
		{"de", "required", "", ""},
		{"en", "required", "", ""},
	} {
		req := httptest.NewRequest("POST", "/", nil)
		req.Header.Set("Accept-Language", tc.accept)
		if got := msg(req, tc.code, tc.param); got != tc.want {
			t.Errorf("%s %s %s: %q, want %q", tc.accept, tc.code, tc.param, got, tc.want)
		}
	}
	// Inside a request, the Ctx's language wins (here set by SetLanguage).
	app := plinth.Bare()
	app.Use(l.Middleware())
	var got string
	app.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) {
		c := plinth.CtxOf(r)
		l.SetLanguage(c, "fr")
		got = msg(r, "required", "")
	})
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/plain", nil))
	if got != "est obligatoire" {
		t.Errorf("through the Ctx: %q", got)
	}
}

// TestLocaleAllocations: a warmed request that asks for a translated message
// without args, and its language, allocates nothing, whichever way the
// language was chosen.
func TestLocaleAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	l := newLocales(t, web.LocalesConfig{})
	app := plinth.Bare()
	app.Use(l.Middleware())
	app.Get("/", func(c *plinth.Ctx) error {
		_ = c.T("hello")
		_ = c.Language()
		_ = c.T("cart.items")
		return c.NoContent(204)
	})
	for _, tc := range []struct{ name, target, cookie, accept string }{
		{"accept-language", "/", "", "fr-CA,fr;q=0.9,en;q=0.5"},
		{"cookie", "/", "de", ""},
		{"query", "/?lang=fr", "", ""},
		{"default", "/", "", ""},
	} {
		req := httptest.NewRequest("GET", tc.target, nil)
		if tc.cookie != "" {
			req.AddCookie(&http.Cookie{Name: "lang", Value: tc.cookie})
		}
		if tc.accept != "" {
			req.Header.Set("Accept-Language", tc.accept)
		}
		w := &nullWriter{h: http.Header{}}
		app.ServeHTTP(w, req)
		if n := testing.AllocsPerRun(200, func() {
			clear(w.h)
			app.ServeHTTP(w, req)
		}); n != 0 {
			t.Errorf("%s: %v allocs per request, want 0", tc.name, n)
		}
	}
}

// nullWriter is a ResponseWriter that allocates nothing.
type nullWriter struct{ h http.Header }

func (w *nullWriter) Header() http.Header         { return w.h }
func (w *nullWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nullWriter) WriteHeader(int)             {}

// BenchmarkLocale measures a request through the Locales middleware whose
// handler asks for one message (op=T), one message with an argument
// (op=T-arg) or none (op=none), the language coming from a remembered
// Accept-Language:
//
//	go test -run '^$' -bench Locale -benchmem ./web
func BenchmarkLocale(b *testing.B) {
	l, err := web.NewLocales(web.LocalesConfig{Files: mapFS(catalogues), Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	app := plinth.Bare()
	app.Use(l.Middleware())
	app.Get("/none", func(c *plinth.Ctx) error { return c.NoContent(204) })
	app.Get("/T", func(c *plinth.Ctx) error { _ = c.T("hello"); return c.NoContent(204) })
	app.Get("/T-arg", func(c *plinth.Ctx) error { _ = c.T("cart.items", 3); return c.NoContent(204) })
	for _, op := range []string{"none", "T", "T-arg"} {
		b.Run("op="+op, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/"+op, nil)
			req.Header.Set("Accept-Language", "fr-CA,fr;q=0.9,en;q=0.5")
			w := &nullWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				app.ServeHTTP(w, req)
			}
		})
	}
}
