// Command gin serves examples/web's measured routes as a Go developer would
// assemble the site without Plinth: gin for routing, scs for sessions (in
// memory, as examples/web's default store), gorilla/csrf, html/template
// views with a layout, translations from examples/web's locale files
// (golang.org/x/text/language negotiates), argon2id at Plinth's cost, a
// sign-in throttle, a request ID and Plinth's default security headers.
// bench/laravel/run.sh measures it next to examples/web and Laravel.
//
//	go run ./gin    # serves on 127.0.0.1:8080, or on $ADDR
//
// Routes: GET /hello (plain text), GET / (the session's user, a CSRF token
// and the language in a view), GET /login, POST /login (CSRF, throttle,
// password, a new session ID, a flash, 303 to /account), POST /logout, GET
// /account (signed in; 401 otherwise).
package main

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/gin-gonic/gin"
	"github.com/gorilla/csrf"
	"golang.org/x/crypto/argon2"
	"golang.org/x/text/language"
)

var (
	//go:embed templates
	templateFiles embed.FS
	//go:embed locales/*.json
	localeFiles embed.FS
	//go:embed site.css
	siteCSS []byte
)

// The demo account, as examples/web seeds it.
const (
	DemoEmail    = "demo@example.com"
	DemoPassword = "demo-password"
)

// Argon2id at Plinth's web.Passwords defaults (web/password.go).
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// User is a user of the site.
type User struct {
	ID, Email, Name, PasswordHash string
}

type site struct {
	sessions *scs.SessionManager
	pages    map[string]*template.Template
	langs    []string // the languages, the default first
	matcher  language.Matcher
	catalog  map[string]map[string]string
	byID     map[string]*User
	byEmail  map[string]*User
	throttle *throttle
}

// NewHandler returns the whole site: the net/http middleware (request ID
// and security headers, scs, gorilla/csrf) around the gin engine. csrfKey
// is gorilla/csrf's 32-byte key.
func NewHandler(csrfKey []byte) (http.Handler, error) {
	s := &site{
		sessions: scs.New(),
		langs:    []string{"en", "fr", "de"},
		catalog:  map[string]map[string]string{},
		byID:     map[string]*User{},
		byEmail:  map[string]*User{},
		throttle: newThrottle(5, time.Minute),
	}
	s.sessions.Lifetime = 24 * time.Hour
	s.sessions.Cookie.Name = "session"
	s.sessions.Cookie.SameSite = http.SameSiteLaxMode
	s.sessions.Cookie.Persist = true
	tags := make([]language.Tag, len(s.langs))
	for i, l := range s.langs {
		tags[i] = language.MustParse(l)
		if err := s.loadLocale(l); err != nil {
			return nil, err
		}
	}
	s.matcher = language.NewMatcher(tags)
	if err := s.parseTemplates(); err != nil {
		return nil, err
	}
	hash, err := hashPassword(DemoPassword)
	if err != nil {
		return nil, err
	}
	demo := &User{ID: "1", Email: DemoEmail, Name: "Demo", PasswordHash: hash}
	s.byID[demo.ID] = demo
	s.byEmail[strings.ToLower(demo.Email)] = demo

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(gin.Recovery(), s.locale)
	r.GET("/hello", func(c *gin.Context) { c.String(http.StatusOK, "Hello, World!") })
	r.GET("/", s.home)
	r.GET("/login", s.loginForm)
	r.POST("/login", s.login)
	r.POST("/logout", s.logout)
	r.GET("/account", s.requireUser, s.account)
	r.GET("/static/site.css", func(c *gin.Context) { c.Data(http.StatusOK, "text/css; charset=utf-8", siteCSS) })

	protect := csrf.Protect(csrfKey, csrf.FieldName("csrf_token"), csrf.RequestHeader("X-CSRF-Token"),
		csrf.Path("/"), csrf.Secure(false), csrf.SameSite(csrf.SameSiteLaxMode), csrf.CookieName("csrf"))
	return baseHeaders(s.sessions.LoadAndSave(protect(r))), nil
}

// The security headers of Plinth's default layer (layer_security.go): the
// short set on every response, the document set added by page and redirect.
var (
	shortHeaders = map[string][]string{
		"Content-Security-Policy":      {"default-src 'none'; frame-ancestors 'none'"},
		"Cross-Origin-Resource-Policy": {"same-origin"},
		"Referrer-Policy":              {"no-referrer"},
		"X-Content-Type-Options":       {"nosniff"},
	}
	documentHeaders = map[string][]string{
		"Content-Security-Policy": {"default-src 'self';base-uri 'self';font-src 'self' https: data:;" +
			"form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';" +
			"script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests"},
		"Cross-Origin-Opener-Policy":        {"same-origin"},
		"Origin-Agent-Cluster":              {"?1"},
		"X-Dns-Prefetch-Control":            {"off"},
		"X-Frame-Options":                   {"SAMEORIGIN"},
		"X-Permitted-Cross-Domain-Policies": {"none"},
		"X-Xss-Protection":                  {"0"},
		"Cache-Control":                     {"no-store"},
		"Vary":                              {"Accept-Language, Cookie"},
	}
)

// baseHeaders gives every response a request ID and the short set of
// security headers, and marks the request as plain HTTP for gorilla/csrf
// (which otherwise requires a Referer on unsafe requests, for HTTPS).
func baseHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Request-Id"] = []string{newRequestID()}
		for k, v := range shortHeaders {
			h[k] = v
		}
		if r.TLS == nil {
			r = csrf.PlaintextHTTPRequest(r)
		}
		next.ServeHTTP(w, r)
	})
}

func setDocumentHeaders(h http.Header) {
	for k, v := range documentHeaders {
		h[k] = v
	}
}

// Request IDs: 26 characters of Crockford base32 over a random prefix and
// a counter, as Plinth's ULID-like IDs.
var (
	idPrefix  [8]byte
	idCounter atomic.Uint64
)

func init() {
	if _, err := rand.Read(idPrefix[:]); err != nil {
		panic(err)
	}
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func newRequestID() string {
	var b [16]byte
	copy(b[:8], idPrefix[:])
	n := idCounter.Add(1)
	for i := range 8 {
		b[15-i] = byte(n >> (8 * i))
	}
	var out [26]byte
	var acc uint32
	bits, j := 0, 0
	for _, x := range b {
		acc = acc<<8 | uint32(x)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out[j] = crockford[(acc>>uint(bits))&31]
			j++
		}
	}
	if bits > 0 {
		out[j] = crockford[(acc<<uint(5-bits))&31]
	}
	return string(out[:])
}

// loadLocale reads examples/web's file for lang, its plain strings (the
// plural entries are not used by these pages).
func (s *site) loadLocale(lang string) error {
	b, err := localeFiles.ReadFile("locales/" + lang + ".json")
	if err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("locales/%s.json: %w", lang, err)
	}
	m := map[string]string{}
	for k, v := range raw {
		var str string
		if json.Unmarshal(v, &str) == nil {
			m[k] = str
		}
	}
	s.catalog[lang] = m
	return nil
}

// locale picks the language: ?lang=, the "lang" cookie, Accept-Language.
func (s *site) locale(c *gin.Context) {
	var cookie string
	if ck, err := c.Request.Cookie("lang"); err == nil {
		cookie = ck.Value
	}
	_, i := language.MatchStrings(s.matcher, c.Query("lang"), cookie, c.GetHeader("Accept-Language"))
	c.Set("lang", s.langs[i])
	c.Next()
}

func (s *site) parseTemplates() error {
	shared := template.New("")
	for _, name := range []string{"layouts/base.html", "partials/nav.html", "partials/flashes.html"} {
		if err := parseInto(shared, name); err != nil {
			return err
		}
	}
	s.pages = map[string]*template.Template{}
	for _, page := range []string{"home", "account", "login"} {
		t, err := shared.Clone()
		if err != nil {
			return err
		}
		if err := parseInto(t, page+".html"); err != nil {
			return err
		}
		s.pages[page] = t
	}
	return nil
}

func parseInto(t *template.Template, name string) error {
	b, err := fs.ReadFile(templateFiles, "templates/"+name)
	if err != nil {
		return err
	}
	_, err = t.New(name).Parse(string(b))
	return err
}

// flash is a one-time message kept in the session.
type flash struct{ Kind, Message string }

var flashKinds = []string{"success", "error"}

// page is what every view gets: the helpers examples/web's views call as
// functions, here as methods, and the page's own Data.
type page struct {
	s       *site
	c       *gin.Context
	user    *User
	flashes []flash
	Data    any
}

func (p *page) T(key string, args ...any) string {
	v, ok := p.s.catalog[p.Lang()][key]
	if !ok {
		v = p.s.catalog[p.s.langs[0]][key]
	}
	if len(args) > 0 {
		return fmt.Sprintf(v, args...)
	}
	return v
}

func (p *page) Lang() string             { return p.c.GetString("lang") }
func (p *page) User() *User              { return p.user }
func (p *page) CSRFToken() string        { return csrf.Token(p.c.Request) }
func (p *page) CSRFField() template.HTML { return csrf.TemplateField(p.c.Request) }
func (p *page) Path() string             { return p.c.Request.URL.RequestURI() }
func (p *page) Flashes() []flash         { return p.flashes }

// popFlashes takes the session's flashes, before the page is written: scs
// saves the session when the response starts.
func (s *site) popFlashes(c *gin.Context) (out []flash) {
	ctx := c.Request.Context()
	for _, k := range flashKinds {
		if m := s.sessions.PopString(ctx, "flash."+k); m != "" {
			out = append(out, flash{k, m})
		}
	}
	return out
}

func (s *site) render(c *gin.Context, status int, name string, data any) {
	setDocumentHeaders(c.Writer.Header())
	p := &page{s: s, c: c, user: s.currentUser(c), flashes: s.popFlashes(c), Data: data}
	c.Status(status)
	c.Header("Content-Type", "text/html; charset=utf-8")
	if err := s.pages[name].ExecuteTemplate(c.Writer, name+".html", p); err != nil {
		_ = c.Error(err)
	}
}

func (s *site) currentUser(c *gin.Context) *User {
	if u, ok := c.Get("user"); ok {
		return u.(*User)
	}
	id := s.sessions.GetString(c.Request.Context(), "user")
	if id == "" {
		return nil
	}
	u := s.byID[id]
	if u != nil {
		c.Set("user", u)
	}
	return u
}

func (s *site) home(c *gin.Context) { s.render(c, http.StatusOK, "home", nil) }

type loginPage struct{ Email, Error string }

func (s *site) loginForm(c *gin.Context) {
	if s.currentUser(c) != nil {
		setDocumentHeaders(c.Writer.Header())
		c.Redirect(http.StatusSeeOther, "/account")
		return
	}
	s.render(c, http.StatusOK, "login", loginPage{})
}

// login: the throttle (5 attempts a minute per client and account, a
// success refunded), the password, then a new session ID holding the user,
// a flash, and 303 to /account.
func (s *site) login(c *gin.Context) {
	email := c.PostForm("email")
	key := c.ClientIP() + "|" + strings.ToLower(strings.TrimSpace(email))
	if !s.throttle.take(key) {
		c.Header("Retry-After", "60")
		c.String(http.StatusTooManyRequests, "too many failed sign-in attempts; try again later")
		return
	}
	user := s.byEmail[strings.ToLower(strings.TrimSpace(email))]
	hash := ""
	if user != nil {
		hash = user.PasswordHash
	}
	if !checkPassword(hash, c.PostForm("password")) || user == nil {
		s.render(c, http.StatusOK, "login", loginPage{Email: email, Error: (&page{s: s, c: c}).T("login.failed")})
		return
	}
	s.throttle.refund(key)
	ctx := c.Request.Context()
	if err := s.sessions.RenewToken(ctx); err != nil {
		c.AbortWithStatus(http.StatusInternalServerError)
		return
	}
	s.sessions.Put(ctx, "user", user.ID)
	s.sessions.Put(ctx, "flash.success", (&page{s: s, c: c}).T("login.welcome", user.Name))
	setDocumentHeaders(c.Writer.Header())
	c.Redirect(http.StatusSeeOther, "/account")
}

func (s *site) logout(c *gin.Context) {
	if err := s.sessions.Destroy(c.Request.Context()); err != nil {
		c.AbortWithStatus(http.StatusInternalServerError)
		return
	}
	setDocumentHeaders(c.Writer.Header())
	c.Redirect(http.StatusSeeOther, "/")
}

func (s *site) requireUser(c *gin.Context) {
	if s.currentUser(c) == nil {
		c.Header("Cache-Control", "no-store")
		c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"title": "Unauthorized", "status": 401, "detail": "sign in first"})
	}
}

type accountPage struct{ User *User }

func (s *site) account(c *gin.Context) {
	s.render(c, http.StatusOK, "account", accountPage{User: s.currentUser(c)})
}

// hashPassword returns password's argon2id hash in the PHC string format.
func hashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

var errBadHash = errors.New("not an argon2id hash")

// checkPassword reports whether password matches hash. An empty hash (an
// unknown email) costs a hash all the same.
func checkPassword(hash, password string) bool {
	var m, t uint32
	var p uint8
	var salt, key []byte
	err := errBadHash
	if parts := strings.Split(hash, "$"); len(parts) == 6 && parts[1] == "argon2id" {
		if _, err = fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err == nil {
			if salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err == nil {
				key, err = base64.RawStdEncoding.DecodeString(parts[5])
			}
		}
	}
	if err != nil {
		m, t, p, salt, key = argonMemory, argonTime, argonThreads, make([]byte, argonSaltLen), make([]byte, argonKeyLen)
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1 && err == nil
}

// throttle is a token bucket per key: rate attempts per period, as many at
// once; refund gives one back.
type throttle struct {
	mu      sync.Mutex
	rate    float64 // tokens per second
	burst   float64
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newThrottle(n int, per time.Duration) *throttle {
	return &throttle{rate: float64(n) / per.Seconds(), burst: float64(n), buckets: map[string]*bucket{}}
}

func (t *throttle) take(key string) bool {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buckets[key]
	if b == nil {
		b = &bucket{tokens: t.burst, last: now}
		t.buckets[key] = b
	}
	b.tokens = min(t.burst, b.tokens+now.Sub(b.last).Seconds()*t.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (t *throttle) refund(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b := t.buckets[key]; b != nil {
		b.tokens = min(t.burst, b.tokens+1)
	}
}
