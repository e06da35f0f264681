package web

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"io/fs"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/plinth-go/plinth"
)

// Default directories of ViewsConfig: the layouts and the partials, parsed
// with every page.
const (
	DefaultLayoutsDir  = "layouts"
	DefaultPartialsDir = "partials"
)

// ViewsConfig configures NewViews. Only Files is required.
type ViewsConfig struct {
	// Files holds the templates, usually an embed.FS (or os.DirFS in
	// development, so that changes are seen). Every file with one of
	// Extensions is a template, named by its path in Files
	// ("layouts/base.html", "partials/nav.html", "account/show.html"):
	// the files under LayoutsDir and PartialsDir are parsed with every
	// page, and every other one is a page. Required: NewViews panics on
	// nil.
	Files fs.FS

	// LayoutsDir and PartialsDir are the directories of the templates that
	// every page can call. Default DefaultLayoutsDir ("layouts") and
	// DefaultPartialsDir ("partials"). Both kinds are parsed with each
	// page; the names only say what they are for: a layout is the page's
	// frame, which the page calls ({{ template "layouts/base.html" . }})
	// and whose blocks it fills ({{ define "content" }}...{{ end }}), a
	// partial a piece any template includes.
	LayoutsDir, PartialsDir string

	// Extensions are the file name endings of templates. Default
	// [".html", ".tmpl"]; other files (images, CSS) are ignored.
	Extensions []string

	// Funcs are functions for the templates besides the built-in ones
	// (nonce, csrfField, csrfToken, t, lang, flashes, user, path). A name
	// that is a built-in's makes NewViews panic. Default none.
	Funcs template.FuncMap

	// Reload re-parses the templates when one of their files changes (its
	// modification time or size; a file added or removed), checked at each
	// Render, so that an edit shows at the next page load without a
	// restart. It needs Files to report modification times (os.DirFS
	// does; embed.FS does not). A template that no longer parses makes
	// Render fail with the file and line in the problem's detail. Default
	// false, and on when PLINTH_ENV is "development": checking the files
	// costs a walk of Files per render, too much for production.
	Reload bool
}

// builtinFuncs are the names of the per-request template functions.
var builtinFuncs = []string{"nonce", "csrfField", "csrfToken", "t", "lang", "flashes", "user", "path"}

// Views renders html/template pages with layouts and partials. Make one
// with NewViews at startup: every template is parsed then, so that a
// template error stops the program with its file and line instead of
// failing a request.
//
// Render executes a page into a pooled buffer and writes it only when the
// execution succeeded: a template error becomes a clean 500 (an HTML error
// page with ErrorPages), never half a page. The templates reach the
// request through built-in functions:
//
//	{{ nonce }}       the CSP nonce (Ctx.CSPNonce): <script nonce="{{ nonce }}">
//	{{ csrfField }}   the hidden CSRF form field (CSRFField)
//	{{ csrfToken }}   the CSRF token alone (CSRFToken), for a header or meta tag
//	{{ t "key" 3 }}   the message key in the request's language (Ctx.T)
//	{{ lang }}        the request's language (Ctx.Language): <html lang="{{ lang }}">
//	{{ flashes }}     the flash messages, read once (FlashesOf): removed from
//	                  the session only when the page rendered without error
//	{{ user }}        the signed-in user, or nil (UserOf)
//	{{ path }}        the request's path and query, for links back to the page:
//	                  <a href="/lang?lang=fr&next={{ path }}"> (the default
//	                  Referrer-Policy, no-referrer, sends no Referer to come back by)
//
// These are per request without a template clone per render: each page
// keeps a few executable clones whose functions read the request from a
// slot of their own, reused by one render at a time.
//
// Views is safe for concurrent use.
type Views struct {
	files    fs.FS
	layouts  string // "layouts/"
	partials string // "partials/"
	exts     []string
	funcs    template.FuncMap
	reload   bool

	set      atomic.Pointer[viewSet]
	reloadMu sync.Mutex
}

// viewSet is the parsed templates.
type viewSet struct {
	pages map[string]*page // by path, and by path without extension when unambiguous
	stamp uint64           // of the files' names, times and sizes, for Reload
}

// page is one page, parsed with the layouts and partials. Its template is
// never executed: renders execute clones of it.
type page struct {
	name string
	tmpl *template.Template
	mu   sync.Mutex
	free []*pageClone
}

// maxFreeClones bounds the clones a page keeps between renders: as many as
// renders of it ran at once, up to this.
const maxFreeClones = 64

// pageClone is one executable copy of a page, whose built-in functions read
// slot.
type pageClone struct {
	tmpl *template.Template
	slot *renderSlot
}

// renderSlot is the request a clone renders.
type renderSlot struct {
	c       *plinth.Ctx
	flashes []Flash
	flashed bool
}

// NewViews parses every template of cfg.Files. A template that does not
// parse is an error whose text has the file and line ("web: views:
// template: account/show.html:12: function \"foo\" not defined"). It panics
// if cfg.Files is nil or a function of cfg.Funcs has a built-in's name:
// those are the program's mistakes.
func NewViews(cfg ViewsConfig) (*Views, error) {
	if cfg.Files == nil {
		panic("web: ViewsConfig.Files is nil; give the fs.FS that holds the templates")
	}
	for name := range cfg.Funcs {
		if slices.Contains(builtinFuncs, name) {
			panic("web: ViewsConfig.Funcs: " + strconv.Quote(name) + " is a built-in template function")
		}
	}
	v := &Views{
		files:    cfg.Files,
		layouts:  dirPrefix(cfg.LayoutsDir, DefaultLayoutsDir),
		partials: dirPrefix(cfg.PartialsDir, DefaultPartialsDir),
		exts:     cfg.Extensions,
		funcs:    cfg.Funcs,
		reload:   cfg.Reload || os.Getenv("PLINTH_ENV") == "development",
	}
	if len(v.exts) == 0 {
		v.exts = []string{".html", ".tmpl"}
	}
	set, err := v.parse()
	if err != nil {
		return nil, err
	}
	v.set.Store(set)
	return v, nil
}

func dirPrefix(dir, def string) string {
	if dir == "" {
		dir = def
	}
	return strings.Trim(path.Clean(dir), "/") + "/"
}

// viewFile is one template file.
type viewFile struct {
	path string
	info fs.FileInfo
}

// list returns the template files, in path order, and their stamp.
func (v *Views) list() ([]viewFile, uint64, error) {
	var files []viewFile
	h := fnv.New64a()
	err := fs.WalkDir(v.files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !slices.ContainsFunc(v.exts, func(ext string) bool { return strings.HasSuffix(p, ext) }) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, viewFile{path: p, info: info})
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", p, info.ModTime().UnixNano(), info.Size())
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("web: views: %w", err)
	}
	return files, h.Sum64(), nil
}

// parse parses every template: the layouts and partials into a base set,
// then each page into a copy of it.
func (v *Views) parse() (*viewSet, error) {
	files, stamp, err := v.list()
	if err != nil {
		return nil, err
	}
	base := template.New("").Funcs(placeholderFuncs()).Funcs(v.funcs)
	var pages []viewFile
	for _, f := range files {
		if !strings.HasPrefix(f.path, v.layouts) && !strings.HasPrefix(f.path, v.partials) {
			pages = append(pages, f)
			continue
		}
		if err := v.parseFile(base, f.path); err != nil {
			return nil, err
		}
	}
	set := &viewSet{pages: make(map[string]*page, 2*len(pages)), stamp: stamp}
	short := map[string]int{}
	for _, f := range pages {
		t, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("web: views: %w", err)
		}
		if err := v.parseFile(t, f.path); err != nil {
			return nil, err
		}
		set.pages[f.path] = &page{name: f.path, tmpl: t}
		short[v.trimExt(f.path)]++
	}
	for _, f := range pages {
		if s := v.trimExt(f.path); short[s] == 1 && set.pages[s] == nil {
			set.pages[s] = set.pages[f.path]
		}
	}
	return set, nil
}

func (v *Views) parseFile(t *template.Template, name string) error {
	b, err := fs.ReadFile(v.files, name)
	if err != nil {
		return fmt.Errorf("web: views: %w", err)
	}
	if _, err := t.New(name).Parse(string(b)); err != nil {
		return fmt.Errorf("web: views: %w", err) // "template: NAME:LINE: ..."
	}
	return nil
}

func (v *Views) trimExt(p string) string {
	for _, ext := range v.exts {
		if strings.HasSuffix(p, ext) {
			return strings.TrimSuffix(p, ext)
		}
	}
	return p
}

// placeholderFuncs declares the built-in functions for parsing; clones
// replace them with functions bound to their slot before any execution.
func placeholderFuncs() template.FuncMap {
	return (&renderSlot{}).funcs()
}

// funcs returns the built-in functions reading s.
func (s *renderSlot) funcs() template.FuncMap {
	return template.FuncMap{
		"nonce":     func() string { return s.c.CSPNonce() },
		"csrfField": func() (template.HTML, error) { return CSRFField(s.c) },
		"csrfToken": func() (string, error) { return CSRFToken(s.c) },
		"t":         func(key string, args ...any) string { return s.c.T(key, args...) },
		"lang":      func() string { return s.c.Language() },
		"flashes": func() []Flash {
			if !s.flashed {
				s.flashes, s.flashed = peekFlashes(s.c), true
			}
			return s.flashes
		},
		"user": func() any { return UserOf(s.c) },
		"path": func() string { return s.c.RawRequest().URL.RequestURI() },
	}
}

// current returns the parsed templates, re-parsed first under Reload when
// a file changed.
func (v *Views) current() (*viewSet, error) {
	set := v.set.Load()
	if !v.reload {
		return set, nil
	}
	v.reloadMu.Lock()
	defer v.reloadMu.Unlock()
	set = v.set.Load()
	_, stamp, err := v.list()
	if err != nil {
		return nil, err
	}
	if stamp == set.stamp {
		return set, nil
	}
	if set, err = v.parse(); err != nil {
		return nil, err
	}
	v.set.Store(set)
	return set, nil
}

// Has reports whether name is a page: a template path outside the layouts
// and partials ("account/show.html"), or that path without its extension
// when no other page shares it ("account/show").
func (v *Views) Has(name string) bool {
	set, err := v.current()
	return err == nil && set.pages[name] != nil
}

// Render executes the page name ("account/show.html", or "account/show")
// with data and sends it with status (0 means 200) as text/html; charset=utf-8.
// The page is executed into a pooled buffer first: when execution fails
// nothing is written and Render returns a 500 *plinth.Problem wrapping the
// template's error (logged by the error renderer, not shown; under Reload
// its text is the problem's detail), which the handler returns. An unknown
// page is such an error too.
func (v *Views) Render(c *plinth.Ctx, status int, name string, data any) error {
	if status == 0 {
		status = http.StatusOK
	}
	buf, err := v.execute(c, name, data)
	if err != nil {
		p := plinth.Error(http.StatusInternalServerError, "")
		if v.reload {
			p.Detail = err.Error()
		}
		return p.Wrap(err)
	}
	err = c.Bytes(status, "text/html; charset=utf-8", buf.Bytes())
	putPageBuffer(buf)
	return err
}

// execute renders the page into a pooled buffer, which the caller puts
// back; on error the buffer is already back.
func (v *Views) execute(c *plinth.Ctx, name string, data any) (*bytes.Buffer, error) {
	set, err := v.current()
	if err != nil {
		return nil, err
	}
	p := set.pages[name]
	if p == nil {
		return nil, fmt.Errorf("web: views: no page %q", name)
	}
	cl, err := p.get()
	if err != nil {
		return nil, err
	}
	buf := getPageBuffer()
	cl.slot.c = c
	err = cl.tmpl.Execute(buf, data)
	if err == nil && len(cl.slot.flashes) > 0 {
		consumeFlashes(c) // only now: a page that failed keeps them for the next
	}
	cl.slot.c, cl.slot.flashes, cl.slot.flashed = nil, nil, false
	p.put(cl)
	if err != nil {
		putPageBuffer(buf)
		return nil, fmt.Errorf("web: views: %w", err)
	}
	return buf, nil
}

// get returns a free clone of p, or a new one.
func (p *page) get() (*pageClone, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		cl := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return cl, nil
	}
	p.mu.Unlock()
	t, err := p.tmpl.Clone()
	if err != nil {
		return nil, fmt.Errorf("web: views: %w", err)
	}
	slot := &renderSlot{}
	t.Funcs(slot.funcs())
	pt := t.Lookup(p.name)
	if pt == nil {
		return nil, errors.New("web: views: page " + strconv.Quote(p.name) + " lost in its clone")
	}
	return &pageClone{tmpl: pt, slot: slot}, nil
}

// put gives a clone back, keeping at most maxFreeClones.
func (p *page) put(cl *pageClone) {
	p.mu.Lock()
	if len(p.free) < maxFreeClones {
		p.free = append(p.free, cl)
	}
	p.mu.Unlock()
}

// maxPooledPage is the largest buffer kept for the next render: pages are
// rarely larger, and a huge one should not pin its memory.
const maxPooledPage = 256 << 10

var pageBufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getPageBuffer() *bytes.Buffer {
	b := pageBufferPool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putPageBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledPage {
		pageBufferPool.Put(b)
	}
}
