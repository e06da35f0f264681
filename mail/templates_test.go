package mail_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
	"github.com/plinth-go/plinth/web"
)

// viewsFS is a views directory with mail templates beside the pages.
func viewsFS() fstest.MapFS {
	return fstest.MapFS{
		"layouts/base.html":      {Data: []byte(`<html>{{ block "content" . }}{{ end }}</html>`)},
		"home.html":              {Data: []byte(`{{ template "layouts/base.html" . }}`)},
		"mail/layouts/base.txt":  {Data: []byte("{{ block \"body\" . }}{{ end }}\n-- \n{{ t \"mail.signature\" }}\n")},
		"mail/layouts/base.html": {Data: []byte(`<html lang="{{ lang }}"><body>{{ block "body" . }}{{ end }}<p>{{ t "mail.signature" }}</p></body></html>`)},
		"mail/welcome.txt":       {Data: []byte("{{ define \"subject\" }}\n  {{ t \"welcome.subject\" .Name }}\n{{ end }}{{ define \"body\" }}{{ t \"welcome.hello\" .Name }}\n{{ end }}{{ template \"layouts/base.txt\" . }}")},
		"mail/welcome.html":      {Data: []byte(`{{ define "body" }}<h1>{{ t "welcome.hello" .Name }}</h1><p>{{ .Name }}</p>{{ end }}{{ template "layouts/base.html" . }}`)},
		"mail/plain.txt":         {Data: []byte("Plain {{ .Name }}\n")},
		"locales/en.json":        {Data: []byte(`{"welcome.subject": "Welcome, %s", "welcome.hello": "Hello, %s!", "mail.signature": "The team"}`)},
		"locales/fr.json":        {Data: []byte(`{"welcome.subject": "Bienvenue, %s", "welcome.hello": "Bonjour, %s !", "mail.signature": "L’équipe"}`)},
	}
}

func newTemplates(t *testing.T) *mail.Templates {
	t.Helper()
	fsys := viewsFS()
	loc, err := web.NewLocales(web.LocalesConfig{Files: fsys, Dir: "locales"})
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := mail.NewTemplates(mail.TemplatesConfig{Files: fsys, Translator: loc})
	if err != nil {
		t.Fatal(err)
	}
	// The same directory still serves as the views' FS.
	if _, err := web.NewViews(web.ViewsConfig{Files: fsys}); err != nil {
		t.Fatalf("web.NewViews over the same FS: %v", err)
	}
	return tpl
}

// TestTemplatesRender: subject from the text template's block, text and
// HTML through their layouts, words from web.Locales in the message's
// language, and the name HTML-escaped in the HTML part only.
func TestTemplatesRender(t *testing.T) {
	tpl := newTemplates(t)
	data := struct{ Name string }{`Zoë <b>&</b>`}
	for _, tc := range []struct{ lang, subject, hello, sig string }{
		{"en", "Welcome, Zoë <b>&</b>", "Hello, Zoë", "The team"},
		{"fr", "Bienvenue, Zoë <b>&</b>", "Bonjour, Zoë", "L’équipe"},
		{"fr-CA", "Bienvenue, Zoë <b>&</b>", "Bonjour, Zoë", "L’équipe"},
		{"de", "Welcome, Zoë <b>&</b>", "Hello, Zoë", "The team"}, // unsupported: the default
	} {
		m := &mail.Message{From: "a@example.com", To: []string{"b@example.com"}}
		if err := tpl.Render(m, "welcome", tc.lang, data); err != nil {
			t.Fatal(err)
		}
		if m.Subject != tc.subject {
			t.Errorf("%s: subject %q, want %q", tc.lang, m.Subject, tc.subject)
		}
		if !strings.HasPrefix(m.Text, tc.hello+" <b>&</b>") || !strings.Contains(m.Text, "-- \n"+tc.sig) {
			t.Errorf("%s: text %q", tc.lang, m.Text)
		}
		if strings.Contains(m.HTML, "<b>&</b>") || !strings.Contains(m.HTML, "<p>Zoë &lt;b&gt;&amp;&lt;/b&gt;</p>") {
			t.Errorf("%s: the name is not escaped in the HTML: %q", tc.lang, m.HTML)
		}
		if !strings.Contains(m.HTML, "<p>"+strings.ReplaceAll(tc.sig, "’", "’")+"</p>") || !strings.HasPrefix(m.HTML, `<html lang="`+tc.lang+`">`) {
			t.Errorf("%s: html %q", tc.lang, m.HTML)
		}
		mem := mailtest.New()
		if err := mem.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		p, err := mailtest.Parse(mem.Raw()[0])
		if err != nil {
			t.Fatal(err)
		}
		if p.Subject != tc.subject || len(p.Alternative) != 2 {
			t.Errorf("%s: sent subject %q, parts %v", tc.lang, p.Subject, p.Alternative)
		}
	}
}

// TestTemplatesTextOnly: a message without NAME.html has no HTML part and
// keeps the caller's subject.
func TestTemplatesTextOnly(t *testing.T) {
	tpl := newTemplates(t)
	m := &mail.Message{Subject: "Kept"}
	if err := tpl.Render(m, "plain", "en", map[string]string{"Name": "x"}); err != nil {
		t.Fatal(err)
	}
	if m.Text != "Plain x\n" || m.HTML != "" || m.Subject != "Kept" {
		t.Fatalf("got %+v", m)
	}
	if !tpl.Has("plain") || tpl.Has("layouts/base") || tpl.Has("nope") {
		t.Error("Has")
	}
}

// TestTemplatesErrors: bad templates fail NewTemplates with the file; an
// unknown message or a failing execution fails Render, m unchanged.
func TestTemplatesErrors(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"mail/bad.txt":   {"mail/bad.txt": {Data: []byte("{{ .Name ")}},
		"mail/only.html": {"mail/only.html": {Data: []byte("<p>x</p>")}},
		"mail/bad.html":  {"mail/bad.txt": {Data: []byte("x")}, "mail/bad.html": {Data: []byte("{{ nofunc }}")}},
	} {
		_, err := mail.NewTemplates(mail.TemplatesConfig{Files: fsys})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: NewTemplates error %v, want one naming the file", name, err)
		}
	}
	tpl := newTemplates(t)
	m := &mail.Message{Text: "before"}
	if err := tpl.Render(m, "missing", "en", nil); err == nil || m.Text != "before" {
		t.Errorf("unknown message: %v, text %q", err, m.Text)
	}
	if err := tpl.Render(m, "welcome", "en", 42); err == nil || m.Text != "before" {
		t.Errorf("failing execution: %v, text %q", err, m.Text)
	}
}

// TestTemplatesWithoutTranslator: t returns the key.
func TestTemplatesWithoutTranslator(t *testing.T) {
	tpl, err := mail.NewTemplates(mail.TemplatesConfig{Files: viewsFS(), Funcs: map[string]any{"upper": strings.ToUpper}})
	if err != nil {
		t.Fatal(err)
	}
	m := &mail.Message{}
	if err := tpl.Render(m, "welcome", "en", struct{ Name string }{"x"}); err != nil {
		t.Fatal(err)
	}
	if m.Subject != "welcome.subject" {
		t.Fatalf("subject %q", m.Subject)
	}
}

// TestTemplatesConcurrent renders in two languages from 16 goroutines at
// once (run with -race): the per-language clones are made and shared
// safely, each with its own language.
func TestTemplatesConcurrent(t *testing.T) {
	tpl := newTemplates(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				lang := []string{"en", "fr"}[(i+j)%2]
				m := &mail.Message{}
				if err := tpl.Render(m, "welcome", lang, struct{ Name string }{"N"}); err != nil {
					t.Error(err)
					return
				}
				want := map[string]string{"en": "Welcome, N", "fr": "Bienvenue, N"}[lang]
				if m.Subject != want {
					t.Errorf("%s: subject %q", lang, m.Subject)
					return
				}
			}
		})
	}
	wg.Wait()
}
