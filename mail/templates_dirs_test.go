package mail_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth/mail"
)

// TestTemplatesDirs: Dir and LayoutsDir may be given with slashes around
// them; messages in subdirectories are named by their path; a layout is
// not a message; the Funcs reach both kinds of template, beside lang.
func TestTemplatesDirs(t *testing.T) {
	fsys := fstest.MapFS{
		"emails/shared/frame.txt":   {Data: []byte(`{{ define "frame.txt" }}[{{ block "body" . }}{{ end }}]{{ end }}`)},
		"emails/shared/frame.html":  {Data: []byte(`{{ define "frame.html" }}<div lang="{{ lang }}">{{ block "body" . }}{{ end }}</div>{{ end }}`)},
		"emails/account/reset.txt":  {Data: []byte("{{ define \"subject\" }}Reset,\n\t{{ shout .Name }}{{ end }}{{ define \"body\" }}{{ shout .Name }}{{ end }}\n\n{{ template \"frame.txt\" . }}")},
		"emails/account/reset.html": {Data: []byte(`{{ define "body" }}<b>{{ shout .Name }}</b>{{ end }}{{ template "frame.html" . }}`)},
		"emails/notes.md":           {Data: []byte("not a template")},
		"mail/other.txt":            {Data: []byte("elsewhere")},
	}
	for _, dir := range []string{"emails", "/emails/", "emails/"} {
		tpl, err := mail.NewTemplates(mail.TemplatesConfig{Files: fsys, Dir: dir, LayoutsDir: "/shared/", Funcs: map[string]any{"shout": strings.ToUpper}})
		if err != nil {
			t.Fatalf("Dir %q: %v", dir, err)
		}
		if !tpl.Has("account/reset") || tpl.Has("shared/frame") || tpl.Has("other") || tpl.Has("notes") {
			t.Errorf("Dir %q: the messages are not account/reset alone", dir)
		}
		m := &mail.Message{Subject: "replaced"}
		if err := tpl.Render(m, "account/reset", "de", map[string]string{"Name": "ada"}); err != nil {
			t.Fatal(err)
		}
		if m.Subject != "Reset, ADA" || m.Text != "[ADA]" || m.HTML != `<div lang="de"><b>ADA</b></div>` {
			t.Errorf("Dir %q: rendered %q %q %q", dir, m.Subject, m.Text, m.HTML)
		}
	}
	// By default, the messages are in mail/ and the layouts in mail/layouts/.
	tpl, err := mail.NewTemplates(mail.TemplatesConfig{Files: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if !tpl.Has("other") || tpl.Has("account/reset") {
		t.Error("the default Dir is not mail")
	}
}

// TestTemplatesHTMLFailure: an HTML template that fails at execution fails
// Render and leaves the message as it was.
func TestTemplatesHTMLFailure(t *testing.T) {
	fsys := fstest.MapFS{
		"mail/m.txt":  {Data: []byte(`{{ define "subject" }}S{{ end }}text`)},
		"mail/m.html": {Data: []byte(`{{ .Missing.Field }}`)},
	}
	tpl, err := mail.NewTemplates(mail.TemplatesConfig{Files: fsys})
	if err != nil {
		t.Fatal(err)
	}
	m := &mail.Message{Subject: "before", Text: "before"}
	if err := tpl.Render(m, "m", "en", map[string]any{"Missing": 1}); err == nil || m.Subject != "before" || m.Text != "before" || m.HTML != "" {
		t.Errorf("Render = %v, message %+v", err, m)
	}
}
