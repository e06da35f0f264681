package mail

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"path"
	"strings"
	"sync"
	texttemplate "text/template"
)

// Default directories of TemplatesConfig.
const (
	// DefaultTemplatesDir is where the messages' templates are in
	// TemplatesConfig.Files: beside the views, not among their pages'
	// directories.
	DefaultTemplatesDir = "mail"
	// DefaultMailLayoutsDir is the layouts' directory, inside Dir.
	DefaultMailLayoutsDir = "layouts"
)

// Translator gives the message for key in the language lang, formatted
// with args. *web.Locales is one (its Text method), so a mail is worded
// from the same catalogue as the site's pages.
type Translator interface {
	Text(lang, key string, args ...any) string
}

// TemplatesConfig configures NewTemplates. Only Files is required.
type TemplatesConfig struct {
	// Files holds the templates: the views' fs.FS (an embed.FS, or
	// os.DirFS in development). Required: NewTemplates panics on nil.
	Files fs.FS
	// Dir is the directory of the mail templates in Files. A message NAME
	// is the pair Dir/NAME.txt (text/template, required) and Dir/NAME.html
	// (html/template, optional: without it the mail is text only). Default
	// DefaultTemplatesDir ("mail").
	Dir string
	// LayoutsDir is the directory, inside Dir, of the layouts parsed with
	// every message: its .txt files with the text templates and its .html
	// files with the HTML ones. A message calls its layout by its path in
	// Dir ({{ template "layouts/base.html" . }}) and fills its blocks
	// ({{ define "content" }}...{{ end }}). Default
	// DefaultMailLayoutsDir ("layouts").
	LayoutsDir string
	// Translator words {{ t "key" args... }} in the message's language.
	// Default none: t returns the key.
	Translator Translator
	// Funcs are functions for both kinds of template besides the built-in
	// t and lang ({{ lang }} is the message's language). Default none.
	Funcs map[string]any
}

// Templates renders messages from templates: the subject and text part
// from NAME.txt, the HTML part from NAME.html, in a language per message.
// Make one with NewTemplates at startup: every template is parsed then, so
// that a template error stops the program with its file and line. It is
// safe for concurrent use.
//
// The text template may define the subject:
//
//	{{ define "subject" }}{{ t "welcome.subject" .Name }}{{ end }}
//	{{ t "welcome.hello" .Name }}
//
// The HTML template is html/template: values are escaped (a name
// "<b>Ada</b>" shows as such, it is not markup).
type Templates struct {
	translator Translator
	funcs      map[string]any
	pages      map[string]*mailPage // never executed: renders use per-language clones

	mu     sync.Mutex
	byLang map[langPage]*mailPage // clones whose t and lang are bound to one language
}

// maxLangClones bounds the per-language clones kept; beyond it a render
// clones for itself.
const maxLangClones = 1024

type langPage struct{ name, lang string }

// mailPage is one message's templates.
type mailPage struct {
	text *texttemplate.Template
	html *htmltemplate.Template // nil: text only
}

// NewTemplates parses every template under cfg.Dir. A template that does
// not parse, or an HTML template without its text template, is an error
// naming the file. It panics if cfg.Files is nil.
func NewTemplates(cfg TemplatesConfig) (*Templates, error) {
	if cfg.Files == nil {
		panic("mail: TemplatesConfig.Files is nil; give the fs.FS that holds the templates")
	}
	dir := path.Clean(strings.Trim(cfg.Dir, "/"))
	if cfg.Dir == "" {
		dir = DefaultTemplatesDir
	}
	layouts := cfg.LayoutsDir
	if layouts == "" {
		layouts = DefaultMailLayoutsDir
	}
	layouts = strings.Trim(path.Clean(layouts), "/") + "/"
	sub, err := fs.Sub(cfg.Files, dir)
	if err != nil {
		return nil, fmt.Errorf("mail: templates: %w", err)
	}
	t := &Templates{translator: cfg.Translator, funcs: cfg.Funcs, pages: map[string]*mailPage{}, byLang: map[langPage]*mailPage{}}
	funcs := t.funcsFor("")
	textBase := texttemplate.New("").Funcs(funcs)
	htmlBase := htmltemplate.New("").Funcs(funcs)
	var texts, htmls []string
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		isLayout := strings.HasPrefix(p, layouts)
		switch path.Ext(p) {
		case ".txt":
			if isLayout {
				return parseInto(sub, dir, p, func(name, text string) error { _, err := textBase.New(name).Parse(text); return err })
			}
			texts = append(texts, p)
		case ".html":
			if isLayout {
				return parseInto(sub, dir, p, func(name, text string) error { _, err := htmlBase.New(name).Parse(text); return err })
			}
			htmls = append(htmls, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range texts {
		tt, err := textBase.Clone()
		if err != nil {
			return nil, fmt.Errorf("mail: templates: %w", err)
		}
		if err := parseInto(sub, dir, p, func(name, text string) error { _, err := tt.New(name).Parse(text); return err }); err != nil {
			return nil, err
		}
		t.pages[strings.TrimSuffix(p, ".txt")] = &mailPage{text: tt.Lookup(p)}
	}
	for _, p := range htmls {
		name := strings.TrimSuffix(p, ".html")
		mp := t.pages[name]
		if mp == nil {
			return nil, fmt.Errorf("mail: templates: %s has no %s.txt: every message needs a text part", path.Join(dir, p), path.Join(dir, name))
		}
		ht, err := htmlBase.Clone()
		if err != nil {
			return nil, fmt.Errorf("mail: templates: %w", err)
		}
		if err := parseInto(sub, dir, p, func(name, text string) error { _, err := ht.New(name).Parse(text); return err }); err != nil {
			return nil, err
		}
		mp.html = ht.Lookup(p)
	}
	return t, nil
}

// parseInto reads file p of fsys and parses it with parse under its name.
func parseInto(fsys fs.FS, dir, p string, parse func(name, text string) error) error {
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		return fmt.Errorf("mail: templates: %w", err)
	}
	if err := parse(p, string(b)); err != nil {
		return fmt.Errorf("mail: templates: %s: %w", path.Join(dir, p), err)
	}
	return nil
}

// funcsFor returns the template functions for lang.
func (t *Templates) funcsFor(lang string) map[string]any {
	f := make(map[string]any, len(t.funcs)+2)
	for k, v := range t.funcs {
		f[k] = v
	}
	tr := t.translator
	f["t"] = func(key string, args ...any) string {
		if tr == nil {
			return key
		}
		return tr.Text(lang, key, args...)
	}
	f["lang"] = func() string { return lang }
	return f
}

// Has reports whether name is a message (NAME.txt exists).
func (t *Templates) Has(name string) bool { return t.pages[name] != nil }

// Render renders message name in lang with data into m: m.Text from
// NAME.txt, m.HTML from NAME.html (left empty without one), and m.Subject
// from the text template's "subject" block when it defines one (its
// whitespace, line breaks included, collapsed to single spaces). Other
// fields of m are left as they are. An unknown name or a template that
// fails is an error, and m is then unchanged.
func (t *Templates) Render(m *Message, name, lang string, data any) error {
	p, err := t.page(name, lang)
	if err != nil {
		return err
	}
	var text, html, subject bytes.Buffer
	if err := p.text.Execute(&text, data); err != nil {
		return fmt.Errorf("mail: templates: %w", err)
	}
	hasSubject := false
	if st := p.text.Lookup("subject"); st != nil {
		hasSubject = true
		if err := st.Execute(&subject, data); err != nil {
			return fmt.Errorf("mail: templates: %w", err)
		}
	}
	if p.html != nil {
		if err := p.html.Execute(&html, data); err != nil {
			return fmt.Errorf("mail: templates: %w", err)
		}
	}
	m.Text = strings.TrimLeft(text.String(), "\r\n")
	m.HTML = html.String()
	if hasSubject {
		m.Subject = strings.Join(strings.Fields(subject.String()), " ")
	}
	return nil
}

// page returns name's templates bound to lang.
func (t *Templates) page(name, lang string) (*mailPage, error) {
	base := t.pages[name]
	if base == nil {
		return nil, fmt.Errorf("mail: templates: no message %q (want %s.txt)", name, name)
	}
	key := langPage{name, lang}
	t.mu.Lock()
	p := t.byLang[key]
	t.mu.Unlock()
	if p != nil {
		return p, nil
	}
	funcs := t.funcsFor(lang)
	tt, err := base.text.Clone()
	if err != nil {
		return nil, fmt.Errorf("mail: templates: %w", err)
	}
	p = &mailPage{text: tt.Funcs(funcs)}
	if base.html != nil {
		ht, err := base.html.Clone()
		if err != nil {
			return nil, fmt.Errorf("mail: templates: %w", err)
		}
		p.html = ht.Funcs(funcs)
	}
	t.mu.Lock()
	if prev := t.byLang[key]; prev != nil {
		p = prev
	} else if len(t.byLang) < maxLangClones {
		t.byLang[key] = p
	}
	t.mu.Unlock()
	return p, nil
}
