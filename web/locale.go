package web

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/language"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/httpsyntax"
)

// DefaultLanguageParam is the query parameter that overrides a request's
// language (?lang=fr), and DefaultLanguageCookie the cookie that remembers
// the language chosen with SwitchHandler: "lang", the name most sites use.
const (
	DefaultLanguageParam  = "lang"
	DefaultLanguageCookie = "lang"
)

// LocalesConfig configures NewLocales. Only Files is required; the zero
// value of every other field is the documented default.
type LocalesConfig struct {
	// Files holds the message catalogues, one JSON file per language named
	// after its BCP 47 tag (en.json, fr.json, pt-BR.json), usually an
	// embed.FS. The format is described in docs/web.md ("Locale"): a flat
	// object of keys and messages, a message being a string with fmt verbs
	// or an object of CLDR plural forms. Required: NewLocales panics on nil.
	Files fs.FS

	// Dir is the directory of Files that holds the catalogues. Default ".":
	// the root (with //go:embed locales/*.json, set Dir to "locales").
	// Other files and subdirectories are ignored.
	Dir string

	// Languages lists the supported languages, each with its catalogue.
	// Default: every catalogue in Dir. A language listed without a
	// catalogue is an error of NewLocales.
	Languages []string

	// Default is the language of requests that ask for none of the
	// supported ones, and the catalogue whose keys the others are checked
	// against. Default: the first of Languages when it is set, else "en"
	// when there is an en.json, else the first catalogue in name order.
	Default string

	// Param is the query parameter that overrides the language for one
	// request (?lang=fr); "-" switches the override off. Default
	// DefaultLanguageParam ("lang").
	Param string

	// Cookie is the cookie that remembers a chosen language (set by
	// SwitchHandler, read on every negotiation); "-" switches it off.
	// Default DefaultLanguageCookie ("lang").
	Cookie string

	// StrictKeys makes NewLocales fail when a catalogue lacks a key of the
	// default language's, or has one the default lacks (a typo, most
	// often). Default false: each such key is logged at warn level, and a
	// missing message falls back to the default language's.
	StrictKeys bool

	// Logger receives the startup report of missing keys. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Locales is a set of message catalogues and the negotiation of each
// request's language: the query override (?lang=fr), then the cookie that
// SwitchHandler sets, then Accept-Language matched against the supported
// languages with golang.org/x/text/language's Matcher (en-GB finds en,
// fr-CA fr, q-values respected), then the default language.
//
// Make one with NewLocales at startup and install its Middleware: handlers
// then call c.T("key", args...) and c.Language(), and templates
// {{ t "key" }} and {{ lang }} (see Views). A Locales is a
// plinth.Translator, and safe for concurrent use.
//
// Cost: the middleware sets one pointer on the Ctx; a request's language
// is worked out only when something asks for it (T or Language), once per
// request. A translated message without args then allocates nothing
// (TestLocaleAllocations); each distinct Accept-Language value is matched
// once and remembered (up to 512 values).
type Locales struct {
	cats    []*catalog // supported, the default first
	def     *catalog
	matcher language.Matcher
	param   string // "" when off
	cookie  string // "" when off
	vary    *httpsyntax.VaryNames

	acceptMu sync.Mutex
	accept   atomic.Pointer[map[string]*catalog] // Accept-Language value -> match, copy on write
}

// maxAcceptCache bounds the remembered Accept-Language values, and
// maxAcceptLen the length of a value worth remembering: browsers send a
// handful of short values; anything else is matched every time.
const (
	maxAcceptCache = 512
	maxAcceptLen   = 128
)

// languageKey keeps a request's negotiated catalogue on its Ctx.
var languageKey = plinth.NewKey[catalog]("web.language")

// NewLocales loads the catalogues of cfg.Files and checks them: a file that
// is not valid (JSON syntax, a message that is neither a string nor plural
// forms, plural forms without "other", a file name that is not a language
// tag) is an error naming the file and line; so is a configured language
// (Languages, Default) that is not a BCP 47 tag or has no catalogue, and,
// with StrictKeys, a key missing from a
// catalogue. Without StrictKeys each missing key is logged at warn level.
// It panics if cfg.Files is nil or Param or Cookie is not a valid name:
// those are the program's mistakes.
func NewLocales(cfg LocalesConfig) (*Locales, error) {
	if cfg.Files == nil {
		panic("web: LocalesConfig.Files is nil; give the fs.FS that holds the catalogues (en.json, fr.json, ...)")
	}
	l := &Locales{param: orDefault(cfg.Param, DefaultLanguageParam), cookie: orDefault(cfg.Cookie, DefaultLanguageCookie)}
	if l.param == "-" {
		l.param = ""
	} else if !httpsyntax.IsToken(l.param) {
		panic("web: LocalesConfig.Param " + strconv.Quote(cfg.Param) + " is not a valid parameter name")
	}
	if l.cookie == "-" {
		l.cookie = ""
	} else if !httpsyntax.IsToken(l.cookie) {
		panic("web: LocalesConfig.Cookie " + strconv.Quote(cfg.Cookie) + " is not a valid cookie name")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	files, err := readCatalogs(cfg.Files, dir)
	if err != nil {
		return nil, err
	}
	if err := l.choose(files, cfg.Languages, cfg.Default); err != nil {
		return nil, err
	}
	if err := l.checkKeys(log, cfg.StrictKeys); err != nil {
		return nil, err
	}
	tags := make([]language.Tag, len(l.cats))
	for i, c := range l.cats {
		tags[i] = c.tag
	}
	l.matcher = language.NewMatcher(tags)
	l.vary = httpsyntax.NewVaryNames("Accept-Language")
	empty := map[string]*catalog{}
	l.accept.Store(&empty)
	return l, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// readCatalogs reads every *.json file of dir.
func readCatalogs(fsys fs.FS, dir string) ([]*catalog, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("web: locales: %w", err)
	}
	var cats []*catalog
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		file := path.Join(dir, name)
		tag, err := language.Parse(strings.TrimSuffix(name, ".json"))
		if err != nil {
			return nil, fmt.Errorf("web: locales: %s: the file name is not a BCP 47 language tag (en.json, pt-BR.json)", file)
		}
		for _, c := range cats {
			if c.tag == tag {
				return nil, fmt.Errorf("web: locales: %s and %s are both %s", c.file, file, tag)
			}
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("web: locales: %w", err)
		}
		msgs, err := parseCatalog(file, data)
		if err != nil {
			return nil, fmt.Errorf("web: locales: %w", err)
		}
		cats = append(cats, &catalog{tag: tag, name: tag.String(), file: file, msgs: msgs})
	}
	if len(cats) == 0 {
		return nil, fmt.Errorf("web: locales: no catalogue (*.json) in %q", dir)
	}
	return cats, nil
}

// choose settles the supported languages and the default among the
// catalogues read.
func (l *Locales) choose(files []*catalog, langs []string, def string) error {
	find := func(name, field string) (*catalog, error) {
		tag, err := language.Parse(name)
		if err != nil {
			return nil, fmt.Errorf("web: locales: LocalesConfig.%s: %q is not a BCP 47 language tag", field, name)
		}
		for _, c := range files {
			if c.tag == tag {
				return c, nil
			}
		}
		return nil, fmt.Errorf("web: locales: LocalesConfig.%s names %s, which has no catalogue (%s.json)", field, tag, tag)
	}
	if len(langs) == 0 {
		l.cats = files
	} else {
		l.cats = nil
		for _, name := range langs {
			c, err := find(name, "Languages")
			if err != nil {
				return err
			}
			if !slices.Contains(l.cats, c) {
				l.cats = append(l.cats, c)
			}
		}
	}
	switch {
	case def != "":
		c, err := find(def, "Default")
		if err != nil {
			return err
		}
		if !slices.Contains(l.cats, c) {
			return fmt.Errorf("web: locales: LocalesConfig.Default %s is not among LocalesConfig.Languages", c.name)
		}
		l.def = c
	case len(langs) > 0:
		l.def = l.cats[0]
	default:
		l.def = l.cats[0]
		for _, c := range l.cats {
			if c.tag == language.English {
				l.def = c
			}
		}
	}
	// The default first: the Matcher falls back to its first tag.
	i := slices.Index(l.cats, l.def)
	l.cats = append([]*catalog{l.def}, slices.Delete(slices.Clone(l.cats), i, i+1)...)
	for _, c := range l.cats {
		c.owner = l
		if c != l.def {
			c.def = l.def
		}
	}
	return nil
}

// checkKeys compares every catalogue's keys with the default's.
func (l *Locales) checkKeys(log *slog.Logger, strict bool) error {
	var report []string
	for _, c := range l.cats[1:] {
		var missing, extra []string
		for k := range l.def.msgs {
			if _, ok := c.msgs[k]; !ok {
				missing = append(missing, k)
			}
		}
		for k := range c.msgs {
			if _, ok := l.def.msgs[k]; !ok {
				extra = append(extra, k)
			}
		}
		slices.Sort(missing)
		slices.Sort(extra)
		for _, k := range missing {
			if !strict {
				log.Warn("web: locales: message missing, the default language's is used",
					slog.String("language", c.name), slog.String("file", c.file), slog.String("key", k),
					slog.String("default", l.def.name))
			}
		}
		for _, k := range extra {
			if !strict {
				log.Warn("web: locales: message not in the default language's catalogue",
					slog.String("language", c.name), slog.String("file", c.file), slog.String("key", k),
					slog.Int("line", c.msgs[k].line), slog.String("default", l.def.file))
			}
		}
		if len(missing) > 0 {
			report = append(report, fmt.Sprintf("%s lacks %s", c.file, strings.Join(quoteAll(missing), ", ")))
		}
		if len(extra) > 0 {
			report = append(report, fmt.Sprintf("%s has %s, which %s lacks", c.file, strings.Join(quoteAll(extra), ", "), l.def.file))
		}
	}
	if strict && len(report) > 0 {
		return errors.New("web: locales: keys differ from the default language's (LocalesConfig.StrictKeys): " + strings.Join(report, "; "))
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Middleware installs l as the request's plinth.Translator, for c.T,
// c.Language and the views' t and lang functions. It costs one pointer set
// on the Ctx; the language is negotiated only when asked for.
func (l *Locales) Middleware() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			c.SetTranslator(l)
			return next(c)
		}
	}
}

// Translate returns the message for key in the request's language,
// formatted with args (see Ctx.T): the language's catalogue, else the
// default language's, else key itself. A plural message takes the form
// the first numeric argument selects. It is Locales' plinth.Translator
// method; handlers call c.T.
func (l *Locales) Translate(c *plinth.Ctx, key string, args ...any) string {
	return l.catalogOf(c).text(key, args)
}

// Language returns the request's negotiated language, one of Languages
// (the catalogue's tag: "en", "pt-BR"), negotiating it on the first call.
func (l *Locales) Language(c *plinth.Ctx) string { return l.catalogOf(c).name }

// SetLanguage makes lang the request's language from now on, when it is a
// supported one (a signed-in user's saved preference, say), and reports
// whether it is. It does not set the cookie: SwitchHandler does.
func (l *Locales) SetLanguage(c *plinth.Ctx, lang string) bool {
	cat := l.find(lang)
	if cat != nil {
		languageKey.Set(c, cat)
	}
	return cat != nil
}

// Text returns the message for key in lang (one of Languages, or any tag
// the matcher brings to one; else the default language), formatted with
// args: for messages outside a request, such as e-mails.
func (l *Locales) Text(lang, key string, args ...any) string {
	cat := l.find(lang)
	if cat == nil {
		cat = l.def
	}
	return cat.text(key, args)
}

// Languages returns the supported languages, the default first.
func (l *Locales) Languages() []string {
	out := make([]string, len(l.cats))
	for i, c := range l.cats {
		out[i] = c.name
	}
	return out
}

// DefaultLanguage returns the default language.
func (l *Locales) DefaultLanguage() string { return l.def.name }

// text formats key's message in c, or key itself when no catalogue has it.
func (c *catalog) text(key string, args []any) string {
	m, from, ok := c.lookup(key)
	if !ok {
		if len(args) == 0 {
			return key
		}
		return fmt.Sprintf(key, args...)
	}
	return m.format(from.tag, args)
}

// catalogOf returns the request's catalogue, negotiating it once.
func (l *Locales) catalogOf(c *plinth.Ctx) *catalog {
	if cat := languageKey.Get(c); cat != nil && cat.owner == l {
		return cat
	}
	cat, byAccept := l.negotiate(c.RawRequest())
	if byAccept && !c.Written() {
		l.vary.Add(c.Header()) // a cache must not serve this answer to other languages
	}
	languageKey.Set(c, cat)
	return cat
}

// negotiate works out r's language: the query override, the cookie,
// Accept-Language, the default. byAccept reports that Accept-Language (or
// its absence) decided.
func (l *Locales) negotiate(r *http.Request) (cat *catalog, byAccept bool) {
	if l.param != "" && r.URL != nil {
		if v, ok := httpsyntax.LookupQuery(r.URL.RawQuery, l.param); ok {
			if cat := l.find(v); cat != nil {
				return cat, false
			}
		}
	}
	if l.cookie != "" {
		if v, ok := requestCookie(r, l.cookie); ok {
			if cat := l.find(v); cat != nil {
				return cat, false
			}
		}
	}
	return l.acceptLanguage(r.Header["Accept-Language"]), true
}

// find returns the catalogue of lang: a supported language by name, or
// one the matcher finds with high confidence (fr-CA: fr), or nil.
func (l *Locales) find(lang string) *catalog {
	if lang == "" {
		return nil
	}
	for _, c := range l.cats {
		if strings.EqualFold(c.name, lang) {
			return c
		}
	}
	tag, err := language.Parse(lang)
	if err != nil {
		return nil
	}
	if _, i, conf := l.matcher.Match(tag); conf >= language.High {
		return l.cats[i]
	}
	return nil
}

// acceptLanguage matches the Accept-Language field against the supported
// languages, remembering the answer for each short value.
func (l *Locales) acceptLanguage(lines []string) *catalog {
	var v string
	switch len(lines) {
	case 0:
		return l.def
	case 1:
		v = lines[0]
	default:
		v = strings.Join(lines, ",")
	}
	cache := *l.accept.Load()
	if cat, ok := cache[v]; ok {
		return cat
	}
	cat := l.def
	if tags, _, err := language.ParseAcceptLanguage(v); err == nil && len(tags) > 0 {
		if _, i, conf := l.matcher.Match(tags...); conf > language.No {
			cat = l.cats[i]
		}
	}
	if len(v) <= maxAcceptLen && len(cache) < maxAcceptCache {
		l.remember(v, cat)
	}
	return cat
}

// remember adds one Accept-Language value to the cache (copy on write:
// readers never lock).
func (l *Locales) remember(v string, cat *catalog) {
	l.acceptMu.Lock()
	defer l.acceptMu.Unlock()
	old := *l.accept.Load()
	if _, ok := old[v]; ok || len(old) >= maxAcceptCache {
		return
	}
	m := make(map[string]*catalog, len(old)+1)
	for k, c := range old {
		m[k] = c
	}
	m[strings.Clone(v)] = cat
	l.accept.Store(&m)
}

// APIMessage returns a function for api.Config.Message that words the api
// package's validation errors from the catalogues: the message of key
// "validation." + code ("validation.required", "validation.min") in the
// request's language, formatted with the rule's argument when it has one
// ("doit valoir au moins %s"). A language without the key uses the default
// language's; when neither has it the function returns "", and api falls
// back to its English api.DefaultMessage. The request's language is the
// one its Ctx negotiated, or negotiated from the request alone.
//
//	a := api.New(app, api.Config{Message: locales.APIMessage()})
func (l *Locales) APIMessage() func(r *http.Request, code, param string) string {
	return func(r *http.Request, code, param string) string {
		var cat *catalog
		if c := plinth.CtxOf(r); c != nil {
			cat = l.catalogOf(c)
		} else {
			cat, _ = l.negotiate(r)
		}
		m, from, ok := cat.lookup("validation." + code)
		if !ok {
			return ""
		}
		if param == "" {
			return m.format(from.tag, nil)
		}
		return m.format(from.tag, []any{param})
	}
}
