package middleware

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/httpsyntax"
)

// CORSConfig configures CORS. Its zero value is invalid (it allows no
// origin); every other field's zero value is a safe default.
type CORSConfig struct {
	// AllowedOrigins lists the origins whose scripts may read responses:
	// exact origins ("https://app.example.com", "http://localhost:3000"),
	// "*" for every origin (refused with AllowCredentials), or a wildcard
	// subdomain pattern "https://*.example.com", which matches any origin
	// with that scheme (and port) whose host ends in ".example.com"
	// (a.example.com and a.b.example.com, not example.com itself). A
	// pattern over a public suffix, whether of the Public Suffix List's
	// ICANN section (https://*.com, https://*.co.uk) or of its private one
	// (https://*.github.io, https://*.herokuapp.com), is refused: it would
	// trust every site anyone can register there. "*.localhost" is allowed
	// (it names this machine). Origins are matched case-insensitively, and
	// a default port (https :443, http :80) is dropped, as browsers drop
	// it. "null" is refused (sandboxed documents and file: URLs share it):
	// use AllowOriginFunc if you must.
	AllowedOrigins []string

	// AllowOriginFunc, if set, is asked about origins that AllowedOrigins
	// does not match. It receives the Origin header as sent and must be safe
	// for concurrent use and fast: it runs on every cross-origin request.
	AllowOriginFunc func(origin string) bool

	// AllowedMethods lists the methods a preflight may ask for. Default GET,
	// HEAD, POST: the CORS-safelisted methods, which browsers send without a
	// preflight anyway, so that methods with side effects beyond a form
	// submission (PUT, PATCH, DELETE) are opt-in. "*" allows every method
	// (refused with AllowCredentials, where browsers read it literally). The
	// standard method names are upper-cased (fetch normalises them); others
	// are matched as written, case-sensitively.
	AllowedMethods []string

	// AllowedHeaders lists the request headers a preflight may ask for,
	// matched case-insensitively. Default Accept, Accept-Language,
	// Content-Language, Content-Type: the names of the CORS-safelisted
	// request headers, with any value, so that a JSON API (Content-Type:
	// application/json) works while headers that carry authority
	// (Authorization, API keys, custom X- headers) must be listed. "*"
	// allows every header except Authorization, which browsers never let
	// "*" cover: list it beside "*" to allow it too. "*" is refused with
	// AllowCredentials.
	AllowedHeaders []string

	// ExposedHeaders lists the response headers, beyond the CORS-safelisted
	// ones, that scripts may read (for example X-Request-Id, ETag). Default
	// none. "*" exposes all of them; refused with AllowCredentials.
	ExposedHeaders []string

	// AllowCredentials lets scripts send cookies and HTTP authentication and
	// read the response (Access-Control-Allow-Credentials: true). Default
	// false. It cannot be combined with "*" in any list.
	AllowCredentials bool

	// MaxAge is how long browsers may cache a preflight answer
	// (Access-Control-Max-Age, whole seconds). Default 5 minutes; a negative
	// value sends no header (browsers then cache for 5 seconds). Browsers cap
	// it (Chromium at 2 hours, Firefox at 24 hours).
	MaxAge time.Duration

	// AllowPrivateNetwork answers Private Network Access preflights
	// (Access-Control-Request-Private-Network: true) with
	// Access-Control-Allow-Private-Network: true, letting allowed public
	// sites reach this service on a private network. Default false: such
	// preflights are refused.
	AllowPrivateNetwork bool
}

// Default CORS settings; see CORSConfig.
var (
	defaultCORSMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost}
	defaultCORSHeaders = []string{"Accept", "Accept-Language", "Content-Language", "Content-Type"}
)

// DefaultCORSMaxAge is the preflight cache time when CORSConfig.MaxAge is 0.
const DefaultCORSMaxAge = 5 * time.Minute

// CORS returns middleware that implements Cross-Origin Resource Sharing
// (the Fetch standard's CORS protocol) for the scope it is installed on. It
// panics at registration if cfg is invalid (no origin allowed, a malformed
// origin or pattern, a pattern over a public suffix, "*" together with
// AllowCredentials), with the message CORSConfig.Validate returns: call
// Validate first to get the error instead.
//
// Install it with Use on the App or on a prefixed group, not with With:
// scope middleware also wraps the scope's fallbacks, so that a
// preflight is answered on paths that have no OPTIONS route, or no route at
// all, where the router would answer 204, 404 or 405.
//
// Behaviour:
//   - A request without Origin passes through, with Vary: Origin added when
//     the answer depends on the origin (every configuration but "*").
//   - An actual request (not a preflight) from an allowed origin gets
//     Access-Control-Allow-Origin (the origin echoed, or "*"),
//     Access-Control-Allow-Credentials and Access-Control-Expose-Headers as
//     configured, and Vary: Origin. From a disallowed origin it gets no CORS
//     headers and is still served: CORS protects the browser's user, not the
//     server, which must authorise requests as usual.
//   - A preflight (OPTIONS with Origin and Access-Control-Request-Method)
//     never reaches the handler. Allowed, it is answered 204 with
//     Access-Control-Allow-Origin, -Methods, -Headers, -Max-Age (and
//     -Credentials, -Private-Network as configured). Refused (origin,
//     method, a header or private network access not allowed), it is
//     answered 403 with a problem document naming the reason and no CORS
//     headers: the browser fails the preflight either way (no
//     Access-Control-Allow-Origin), and the 403 tells the developer why in
//     the network panel instead of a 2xx that looks like success.
//   - Vary values are merged with the ones already set into one header
//     line, never duplicated.
//
// Header values are rendered once, here. A request without Origin, from an
// allowed exact origin, from a disallowed one or with "*", and an allowed
// preflight, allocate nothing (TestCORSAllocations); a request from an
// origin matched by a wildcard pattern or AllowOriginFunc allocates the
// echoed header value (one allocation). Measured figures, with the command
// that produces them: docs/middleware.md, "Measured cost of CORS, Real IP
// and Access log".
func CORS(cfg CORSConfig) plinth.Middleware {
	p, err := newCORSPolicy(cfg)
	if err != nil {
		panic(err.Error())
	}
	return p.middleware
}

// Validate reports the first problem of c that makes CORS panic, as an
// error naming the field and the reason, or nil. Check a configuration
// read from data (a file, the environment) with it before calling CORS.
// It runs the same checks as CORS, so the two never disagree.
func (c CORSConfig) Validate() error {
	_, err := newCORSPolicy(c)
	return err
}

// corsPolicy is a CORSConfig rendered for serving.
type corsPolicy struct {
	anyOrigin bool
	exact     map[string][]string // lower-cased origin -> its ACAO header value
	wildcards []originPattern
	originFn  func(string) bool

	anyMethod bool
	methods   []string
	anyHeader bool
	headers   []string

	// Vary names added to every response whose answer depends on the
	// origin (varyOrigin), to preflights (varyPreflight), and to
	// preflights when every origin is allowed (varyRequest).
	varyOrigin    *httpsyntax.VaryNames
	varyPreflight *httpsyntax.VaryNames
	varyRequest   *httpsyntax.VaryNames

	// Pre-rendered header values (len == cap, so that an append by later
	// code copies instead of writing into them).
	allowMethods   []string
	allowHeaders   []string
	exposeHeaders  []string // nil for none
	maxAge         []string // nil for none
	credentials    bool
	privateNetwork bool
}

// originPattern is "scheme://*.suffix[:port]" split around the star.
type originPattern struct {
	prefix string // "https://"
	suffix string // ".example.com" or ".example.com:8443"
}

var (
	hvStar = []string{"*"}
	hvTrue = []string{"true"}
)

var standardMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace,
}

// newCORSPolicy checks cfg and renders it, one step per field group; the
// first error found is returned.
func newCORSPolicy(cfg CORSConfig) (*corsPolicy, error) {
	if len(cfg.AllowedOrigins) == 0 && cfg.AllowOriginFunc == nil {
		return nil, corsErrorf("no origin is allowed: set AllowedOrigins or AllowOriginFunc")
	}
	p := &corsPolicy{
		exact:          map[string][]string{},
		originFn:       cfg.AllowOriginFunc,
		credentials:    cfg.AllowCredentials,
		privateNetwork: cfg.AllowPrivateNetwork,
		varyOrigin:     httpsyntax.NewVaryNames("Origin"),
		varyPreflight:  httpsyntax.NewVaryNames("Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"),
		varyRequest:    httpsyntax.NewVaryNames("Access-Control-Request-Method", "Access-Control-Request-Headers"),
	}
	if err := p.addOrigins(cfg.AllowedOrigins); err != nil {
		return nil, err
	}
	if err := p.addMethods(cfg.AllowedMethods); err != nil {
		return nil, err
	}
	if err := p.addHeaders(cfg.AllowedHeaders); err != nil {
		return nil, err
	}
	exposed, err := renderExposedHeaders(cfg.ExposedHeaders, cfg.AllowCredentials)
	if err != nil {
		return nil, err
	}
	p.exposeHeaders = exposed
	p.maxAge = renderMaxAge(cfg.MaxAge)
	return p, nil
}

// corsErrorf returns a configuration error of CORS.
func corsErrorf(format string, args ...any) error {
	return fmt.Errorf("plinth/middleware: CORS: "+format, args...)
}

// addOrigins sorts the AllowedOrigins entries into "*", wildcard patterns
// and exact origins (lower-cased, default port dropped, each with its
// rendered Access-Control-Allow-Origin value). p.credentials must be set.
func (p *corsPolicy) addOrigins(origins []string) error {
	for _, o := range origins {
		o = strings.TrimSpace(o)
		switch {
		case o == "*":
			p.anyOrigin = true
		case strings.Contains(o, "*"):
			pat, err := parseOriginPattern(o)
			if err != nil {
				return corsErrorf("AllowedOrigins: %v", err)
			}
			p.wildcards = append(p.wildcards, pat)
		default:
			if err := checkOrigin(o); err != nil {
				return corsErrorf("AllowedOrigins: %v", err)
			}
			lo := stripDefaultPort(strings.ToLower(o))
			p.exact[lo] = []string{lo}
		}
	}
	if p.anyOrigin && p.credentials {
		return corsErrorf("AllowedOrigins \"*\" with AllowCredentials: browsers refuse credentialed responses " +
			"to \"*\"; list the origins (or use AllowOriginFunc)")
	}
	return nil
}

// addMethods checks the AllowedMethods entries (default GET, HEAD, POST),
// upper-cases the standard ones and renders Access-Control-Allow-Methods.
// p.credentials must be set.
func (p *corsPolicy) addMethods(methods []string) error {
	if len(methods) == 0 {
		methods = defaultCORSMethods
	}
	for _, m := range methods {
		m = strings.TrimSpace(m)
		if m == "*" {
			p.anyMethod = true
			continue
		}
		if !httpsyntax.IsToken(m) {
			return corsErrorf("AllowedMethods: %q is not a method name", m)
		}
		for _, s := range standardMethods {
			if strings.EqualFold(m, s) {
				m = s
			}
		}
		p.methods = append(p.methods, m)
	}
	if !p.anyMethod {
		p.allowMethods = []string{strings.Join(p.methods, ", ")}
		return nil
	}
	if p.credentials {
		return corsErrorf("AllowedMethods \"*\" with AllowCredentials: browsers read \"*\" literally " +
			"in credentialed requests; list the methods")
	}
	p.allowMethods = hvStar
	return nil
}

// addHeaders checks the AllowedHeaders entries (default: the safelisted
// request headers), canonicalises them and renders
// Access-Control-Allow-Headers. p.credentials must be set.
func (p *corsPolicy) addHeaders(headers []string) error {
	if len(headers) == 0 {
		headers = defaultCORSHeaders
	}
	for _, h := range headers {
		h = strings.TrimSpace(h)
		if h == "*" {
			p.anyHeader = true
			continue
		}
		if !httpsyntax.IsToken(h) {
			return corsErrorf("AllowedHeaders: %q is not a header name", h)
		}
		p.headers = append(p.headers, http.CanonicalHeaderKey(h))
	}
	if !p.anyHeader {
		p.allowHeaders = []string{strings.Join(p.headers, ", ")}
		return nil
	}
	if p.credentials {
		return corsErrorf("AllowedHeaders \"*\" with AllowCredentials: browsers read \"*\" literally " +
			"in credentialed requests; list the headers")
	}
	// "*" does not cover Authorization in browsers: one listed beside it
	// is rendered beside it.
	p.allowHeaders = []string{strings.Join(append([]string{"*"}, p.headers...), ", ")}
	return nil
}

// renderExposedHeaders checks the ExposedHeaders entries and renders
// Access-Control-Expose-Headers: nil for none, "*" when listed (and
// credentials are off).
func renderExposedHeaders(headers []string, credentials bool) ([]string, error) {
	var exposed []string
	for _, h := range headers {
		h = strings.TrimSpace(h)
		if h == "*" {
			if credentials {
				return nil, corsErrorf("ExposedHeaders \"*\" with AllowCredentials: browsers read \"*\" literally " +
					"in credentialed requests; list the headers")
			}
			exposed = []string{"*"}
			break
		}
		if !httpsyntax.IsToken(h) {
			return nil, corsErrorf("ExposedHeaders: %q is not a header name", h)
		}
		exposed = append(exposed, http.CanonicalHeaderKey(h))
	}
	if len(exposed) == 0 {
		return nil, nil
	}
	return []string{strings.Join(exposed, ", ")}, nil
}

// renderMaxAge renders Access-Control-Max-Age in whole seconds:
// DefaultCORSMaxAge for 0, nil (no header) for a negative MaxAge.
func renderMaxAge(maxAge time.Duration) []string {
	switch {
	case maxAge == 0:
		return []string{strconv.Itoa(int(DefaultCORSMaxAge / time.Second))}
	case maxAge > 0:
		return []string{strconv.FormatInt(int64(maxAge/time.Second), 10)}
	}
	return nil
}

// checkOrigin accepts a serialised origin: scheme "://" host [":" port],
// nothing else.
func checkOrigin(o string) error {
	if o == "" {
		return errors.New("empty origin")
	}
	if strings.EqualFold(o, "null") {
		return errors.New(`"null" is shared by sandboxed documents and file: URLs and cannot be allowed by ` +
			`name; use AllowOriginFunc if you must`)
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
		return fmt.Errorf("%q is not an origin (scheme://host[:port], no path)", o)
	}
	if strings.Count(o, "://") != 1 {
		return fmt.Errorf("%q is not an origin (scheme://host[:port], no path)", o)
	}
	return nil
}

// parseOriginPattern parses "scheme://*.domain[:port]".
func parseOriginPattern(o string) (originPattern, error) {
	bad := func() (originPattern, error) {
		return originPattern{}, fmt.Errorf("%q: a wildcard origin must look like https://*.example.com "+
			"(one leading \"*.\" label, then a domain, an optional port, no path)", o)
	}
	scheme, rest, ok := strings.Cut(o, "://")
	if !ok || strings.Count(o, "*") != 1 || !strings.HasPrefix(rest, "*.") || scheme == "" {
		return bad()
	}
	domain := rest[1:] // ".example.com[:port]"
	if err := checkOrigin(scheme + "://x" + domain); err != nil {
		return bad()
	}
	host := domain[1:]
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	if err := checkPatternDomain(strings.ToLower(host)); err != nil {
		return originPattern{}, fmt.Errorf("%q: %v", o, err)
	}
	scheme, domain = strings.ToLower(scheme), strings.ToLower(domain)
	domain = strings.TrimPrefix(stripDefaultPort(scheme+"://"+domain), scheme+"://")
	return originPattern{prefix: scheme + "://", suffix: domain}, nil
}

// checkPatternDomain accepts the lower-cased domain under a wildcard
// pattern's "*.": ASCII, as browsers send it, and not a public suffix. A
// suffix of either section of the Public Suffix List is refused: the ICANN
// one (com, co.uk) and the private one (github.io, herokuapp.com), whose
// subdomains belong to the platform's users, any of whom could then read
// responses. A domain that is not on the list (corp.example) is checked
// against the list's default rule, under which every top-level domain is a
// public suffix. "localhost" is allowed: its subdomains are this machine.
func checkPatternDomain(host string) error {
	if host == "localhost" {
		return nil
	}
	last := host[strings.LastIndexByte(host, '.')+1:]
	for label := range strings.SplitSeq(host, ".") {
		if label == "" {
			return fmt.Errorf("the domain %q has an empty label", host)
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return fmt.Errorf("the domain %q must be written in ASCII letters, digits and '-' (an "+
					"internationalised name in its xn-- form), as browsers send it", host)
			}
		}
	}
	if strings.Trim(last, "0123456789") == "" {
		return fmt.Errorf("%q is an IP address, which has no subdomains", host)
	}
	suffix, icann := publicsuffix.PublicSuffix(host)
	if suffix != host {
		return nil
	}
	why := "a top-level domain"
	switch {
	case strings.Contains(host, ".") && icann:
		why = "a public suffix (ICANN section of the Public Suffix List)"
	case strings.Contains(host, "."):
		why = "a public suffix (private section of the Public Suffix List: its subdomains belong to " +
			"different users of one platform)"
	}
	return fmt.Errorf("the wildcard must be below a registrable domain, and %q is %s: the pattern "+
		"would trust every site registered under it; name a domain you control (https://*.example.%s), "+
		"or use AllowOriginFunc", host, why, host)
}

// stripDefaultPort removes ":443" from an https origin and ":80" from an
// http one (lower-cased), as browsers serialise origins without them.
func stripDefaultPort(o string) string {
	switch {
	case strings.HasPrefix(o, "https://"):
		return strings.TrimSuffix(o, ":443")
	case strings.HasPrefix(o, "http://"):
		return strings.TrimSuffix(o, ":80")
	}
	return o
}

// match reports whether origin is scheme://<labels><suffix>, where the
// labels are a non-empty run of letters, digits, '-' and '.', case-insensitively.
func (p originPattern) match(origin string) bool {
	if len(origin) <= len(p.prefix)+len(p.suffix) ||
		!strings.EqualFold(origin[:len(p.prefix)], p.prefix) ||
		!strings.EqualFold(origin[len(origin)-len(p.suffix):], p.suffix) {
		return false
	}
	mid := origin[len(p.prefix) : len(origin)-len(p.suffix)]
	if mid[0] == '.' || mid[0] == '-' {
		return false
	}
	for i := 0; i < len(mid); i++ {
		c := mid[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
		if c == '.' && (i+1 == len(mid) || mid[i+1] == '.') {
			return false
		}
	}
	return true
}

// allowOrigin returns the Access-Control-Allow-Origin value for origin, or
// nil if it is not allowed.
func (p *corsPolicy) allowOrigin(origin string) []string {
	if p.anyOrigin {
		return hvStar
	}
	if v, ok := p.exact[origin]; ok {
		return v
	}
	if hasUpper(origin) {
		if _, ok := p.exact[strings.ToLower(origin)]; ok {
			return []string{origin}
		}
	}
	for _, w := range p.wildcards {
		if w.match(origin) {
			return []string{origin}
		}
	}
	if p.originFn != nil && p.originFn(origin) {
		return []string{origin}
	}
	return nil
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func (p *corsPolicy) middleware(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		r := c.Request()
		h := c.Header()
		origins := r.Header["Origin"]
		if len(origins) == 0 {
			if !p.anyOrigin {
				p.varyOrigin.Add(h)
			}
			return next(c)
		}
		if r.Method == http.MethodOptions && len(r.Header["Access-Control-Request-Method"]) > 0 {
			return p.preflight(c, h, r, origins)
		}
		if !p.anyOrigin {
			p.varyOrigin.Add(h)
		}
		var allow []string
		if len(origins) == 1 {
			allow = p.allowOrigin(origins[0])
		}
		if allow != nil {
			h["Access-Control-Allow-Origin"] = allow
			if p.credentials {
				h["Access-Control-Allow-Credentials"] = hvTrue
			}
			if p.exposeHeaders != nil {
				h["Access-Control-Expose-Headers"] = p.exposeHeaders
			}
		}
		return next(c)
	}
}

// preflight answers an OPTIONS request carrying Origin and
// Access-Control-Request-Method, without calling the handler.
func (p *corsPolicy) preflight(c *plinth.Ctx, h http.Header, r *http.Request, origins []string) error {
	if p.anyOrigin {
		p.varyRequest.Add(h)
	} else {
		p.varyPreflight.Add(h)
	}
	var allow []string
	if len(origins) == 1 {
		allow = p.allowOrigin(origins[0])
	}
	if allow == nil {
		return plinth.Forbidden("CORS preflight refused: origin not allowed")
	}
	method := r.Header["Access-Control-Request-Method"][0]
	if !p.methodAllowed(method) {
		return plinth.Forbidden("CORS preflight refused: method " + strconv.Quote(method) + " not allowed")
	}
	if bad, ok := p.headersAllowed(r.Header["Access-Control-Request-Headers"]); !ok {
		return plinth.Forbidden("CORS preflight refused: header " + strconv.Quote(bad) + " not allowed")
	}
	pna := false
	if v := r.Header["Access-Control-Request-Private-Network"]; len(v) > 0 && strings.EqualFold(v[0], "true") {
		if !p.privateNetwork {
			return plinth.Forbidden("CORS preflight refused: private network access not allowed")
		}
		pna = true
	}
	h["Access-Control-Allow-Origin"] = allow
	if p.credentials {
		h["Access-Control-Allow-Credentials"] = hvTrue
	}
	h["Access-Control-Allow-Methods"] = p.allowMethods
	h["Access-Control-Allow-Headers"] = p.allowHeaders
	if p.maxAge != nil {
		h["Access-Control-Max-Age"] = p.maxAge
	}
	if pna {
		h["Access-Control-Allow-Private-Network"] = hvTrue
	}
	return c.NoContent(http.StatusNoContent)
}

// methodAllowed: the safelisted methods are always allowed (browsers do not
// check them against Access-Control-Allow-Methods).
func (p *corsPolicy) methodAllowed(m string) bool {
	if p.anyMethod || m == http.MethodGet || m == http.MethodHead || m == http.MethodPost {
		return true
	}
	for _, a := range p.methods {
		if a == m {
			return true
		}
	}
	return false
}

// headersAllowed checks every name of the Access-Control-Request-Headers
// lines; it returns the first refused one.
func (p *corsPolicy) headersAllowed(lines []string) (string, bool) {
	for _, line := range lines {
		for line != "" {
			var name string
			name, line, _ = strings.Cut(line, ",")
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if p.anyHeader && !strings.EqualFold(name, "Authorization") {
				continue // browsers never let "*" cover Authorization
			}
			ok := false
			for _, a := range p.headers {
				if strings.EqualFold(a, name) {
					ok = true
					break
				}
			}
			if !ok {
				return name, false
			}
		}
	}
	return "", true
}
