package plinth

import (
	"crypto/rand"
	"encoding/base64"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// The default Content-Security-Policy, helmet 8's, in two parts around the
// script-src directive so that CSPNonce can slot a nonce in.
const (
	cspBefore = "default-src 'self';base-uri 'self';font-src 'self' https: data:;" +
		"form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self'"
	cspAfter = ";script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests"
)

// SecurityHeaders is a set of response headers that New's default layer
// writes on the responses of a scope, from values rendered at startup, when
// the response starts (its first WriteHeader or Write) and by what it is:
//
//   - a document (Content-Type HTML, XHTML, SVG or XML, or none set) gets
//     the whole set, with CSPNonce's nonce in its Content-Security-Policy;
//   - any other response (JSON, problem JSON, text, images, ...) gets the
//     short set OWASP recommends for APIs: X-Content-Type-Options,
//     Referrer-Policy, Cross-Origin-Resource-Policy, Cache-Control when the
//     set has it, Content-Security-Policy "default-src 'none';
//     frame-ancestors 'none'" (the scope's own CSP when it set one), and the
//     set's headers beyond helmet's browser-only ones. Headers such as
//     X-Frame-Options or Cross-Origin-Opener-Policy only act on documents;
//     net/http writes every header line of every response, so the short set
//     is what keeps the default layer cheap.
//
// That split applies to the default set, helmet's, edited or not by
// Router.SetSecurityHeader. A set the program gives whole
// (Router.SetSecurityHeaders, the Security layer) is sent as given on every
// response. Strict-Transport-Security is sent on both, when Ctx.Secure. A header the
// handler set itself before the response started is left as it is; to send
// none of one, set it to nil (c.Header()["X-Frame-Options"] = nil) or remove
// it from the scope's set with Router.SetSecurityHeader(name, ""). An empty
// value in the set removes the header.
type SecurityHeaders map[string]string

// HelmetHeaders returns helmet 8's defaults, the set New uses.
func HelmetHeaders() SecurityHeaders {
	return SecurityHeaders{
		"Content-Security-Policy":           cspBefore + cspAfter,
		"Cross-Origin-Opener-Policy":        "same-origin",
		"Cross-Origin-Resource-Policy":      "same-origin",
		"Origin-Agent-Cluster":              "?1",
		"Referrer-Policy":                   "no-referrer",
		"Strict-Transport-Security":         "max-age=31536000; includeSubDomains",
		"X-Content-Type-Options":            "nosniff",
		"X-DNS-Prefetch-Control":            "off",
		"X-Frame-Options":                   "SAMEORIGIN",
		"X-Permitted-Cross-Domain-Policies": "none",
		"X-XSS-Protection":                  "0",
	}
}

// OWASPHeaders returns the stricter set of the OWASP Secure Headers Project:
// no framing at all, no cross-origin embedding, a locked-down Permissions-
// Policy and no caching. It suits APIs and admin areas; pages that embed
// third-party content need to loosen it.
func OWASPHeaders() SecurityHeaders {
	return SecurityHeaders{
		"Cache-Control":                     "no-store, max-age=0",
		"Content-Security-Policy":           "default-src 'self';form-action 'self';object-src 'none';frame-ancestors 'none';upgrade-insecure-requests",
		"Cross-Origin-Embedder-Policy":      "require-corp",
		"Cross-Origin-Opener-Policy":        "same-origin",
		"Cross-Origin-Resource-Policy":      "same-origin",
		"Permissions-Policy":                "accelerometer=(), autoplay=(), camera=(), display-capture=(), encrypted-media=(), fullscreen=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), midi=(), payment=(), picture-in-picture=(), publickey-credentials-get=(), screen-wake-lock=(), sync-xhr=(self), usb=(), web-share=(), xr-spatial-tracking=()",
		"Referrer-Policy":                   "no-referrer",
		"Strict-Transport-Security":         "max-age=31536000; includeSubDomains",
		"X-Content-Type-Options":            "nosniff",
		"X-DNS-Prefetch-Control":            "off",
		"X-Frame-Options":                   "DENY",
		"X-Permitted-Cross-Domain-Policies": "none",
	}
}

// SetSecurityHeaders replaces the security headers of this scope and the
// groups below it (New's default layer writes them; Bare has none).
func (rt *Router) SetSecurityHeaders(h SecurityHeaders) {
	rt.app.mustBeOpen()
	if h == nil {
		h = SecurityHeaders{}
	}
	rt.security = append(rt.security, securityEdit{set: maps.Clone(h)})
}

// SetSecurityHeader overrides one security header for this scope and the groups
// below it; an empty value removes it. For example
// api.SetSecurityHeader("Content-Security-Policy", "default-src 'none'").
func (rt *Router) SetSecurityHeader(name, value string) {
	rt.app.mustBeOpen()
	rt.security = append(rt.security, securityEdit{name: name, value: value})
}

// securityEdit is one SetSecurityHeaders (set) or SecurityHeader call.
type securityEdit struct {
	set         SecurityHeaders
	name, value string
}

// headerValue is one rendered header.
type headerValue struct {
	key   string
	value []string
}

// renderedSecurity is the header set of one scope, ready to write: the full
// set for documents, the short set for every other response, both rendered
// at Build and chosen when the response starts, from its Content-Type.
type renderedSecurity struct {
	document []headerValue // HTML, SVG, XML, or no Content-Type yet
	other    []headerValue // JSON, problem JSON, text, images, ...
	hsts     []string      // sent when Ctx.Secure; nil for none

	// The same sets as header lines, for a writer that takes them as one
	// block (the engine's, see headerBlockWriter).
	documentBlock, otherBlock []byte
	documentNames, otherNames []string
}

// headerBlockWriter is a ResponseWriter that takes header lines rendered
// once as one block, written after the handler's own headers except those
// the handler set itself: Plinth's engine (internal/engine). On net/http
// the security headers go into the header map, as before.
type headerBlockWriter interface {
	SetHeaderBlock(block []byte, names []string)
}

// renderBlock renders set as header lines, as net/http would write them.
func renderBlock(set []headerValue) ([]byte, []string) {
	var b []byte
	names := make([]string, 0, len(set))
	for _, hv := range set {
		for _, v := range hv.value {
			v = strings.TrimSpace(strings.Map(func(r rune) rune {
				if r == '\r' || r == '\n' {
					return ' '
				}
				return r
			}, v))
			b = append(b, hv.key...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
			names = append(names, hv.key)
		}
	}
	return b, names
}

// apiCSP is the Content-Security-Policy of responses that are not
// documents: nothing may load, nothing may frame them.
const apiCSP = "default-src 'none'; frame-ancestors 'none'"

// otherKeys are the headers of a scope's set that non-document responses
// keep: what OWASP recommends for APIs (besides the CSP above and HSTS).
var otherKeys = [...]string{"Cache-Control", "Cross-Origin-Resource-Policy", "Referrer-Policy", "X-Content-Type-Options"}

// writeSecurity adds to h, the header of a response about to be sent, the
// security set that fits it (rs, nil for none): headers the handler set
// itself (even to nil, to send none) are left as they are. A document whose
// handler asked for a CSP nonce gets it in its Content-Security-Policy,
// whichever set it (the scope's set or the handler).
func (c *Ctx) writeSecurity(rs *renderedSecurity, h http.Header) {
	c.writeSecurityAs(rs, h, isDocument(h))
}

// writeSecurityAs is writeSecurity for a response whose kind is known: doc
// is isDocument(h).
func (c *Ctx) writeSecurityAs(rs *renderedSecurity, h http.Header, doc bool) {
	if rs != nil {
		if bw, ok := c.rw.w.(headerBlockWriter); ok && !(doc && c.nonce != "") {
			// The engine writes the block whole, skipping the names the
			// handler set (a CSP with a nonce goes the map's way).
			if doc {
				bw.SetHeaderBlock(rs.documentBlock, rs.documentNames)
			} else {
				bw.SetHeaderBlock(rs.otherBlock, rs.otherNames)
			}
		} else {
			set := rs.other
			if doc {
				set = rs.document
			}
			for _, hv := range set {
				if _, ok := h[hv.key]; !ok {
					h[hv.key] = hv.value
				}
			}
		}
		if rs.hsts != nil && c.Secure() {
			if _, ok := h["Strict-Transport-Security"]; !ok {
				h["Strict-Transport-Security"] = rs.hsts
			}
		}
	}
	if doc && c.nonce != "" {
		if v := h["Content-Security-Policy"]; len(v) == 1 {
			h["Content-Security-Policy"] = []string{withNonce(v[0], c.nonce)}
		}
	}
}

// isDocument reports whether a response with header h is something a
// browser renders as a page that can run script: HTML, XHTML, SVG or XML, or
// a response without a Content-Type yet (net/http may sniff it as HTML).
func isDocument(h http.Header) bool {
	v := h["Content-Type"]
	if len(v) == 0 {
		return true
	}
	ct := v[0]
	for len(ct) > 0 && (ct[0] == ' ' || ct[0] == '\t') {
		ct = ct[1:]
	}
	if ct == "" {
		return true // a blank type is no type: the browser sniffs
	}
	// One branch on the first letter, so that the usual answers (JSON,
	// text, images) cost a comparison or two.
	switch ct[0] | 0x20 {
	case 't':
		if !hasPrefixFold(ct, "text/") {
			return false
		}
		ct = ct[len("text/"):]
		return hasPrefixFold(ct, "html") || hasPrefixFold(ct, "xml")
	case 'a':
		return hasPrefixFold(ct, "application/xhtml+xml") || hasPrefixFold(ct, "application/xml")
	case 'i':
		return hasPrefixFold(ct, "image/svg+xml")
	}
	return false
}

// hasPrefixFold reports whether s starts with prefix, ASCII letters compared
// without case; prefix is lower case (a byte loop: strings.EqualFold's
// Unicode path cost more than the rest of isDocument).
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// securityFor renders the effective set of g: the helmet defaults edited by
// g's ancestors' calls, root first.
func securityFor(g *Router) *renderedSecurity {
	var chain []*Router
	for r := g; r != nil; r = r.parent {
		chain = append(chain, r)
	}
	set, given := HelmetHeaders(), false
	for _, r := range slices.Backward(chain) {
		for _, e := range r.security {
			if e.set != nil {
				set, given = maps.Clone(e.set), true
			} else {
				set[e.name] = e.value
			}
		}
	}
	if given {
		return renderSecurityAsGiven(set)
	}
	return renderSecurity(set)
}

// renderSecurity renders set, an empty value meaning no header: the whole
// set for documents; for other responses the set's otherKeys, a CSP of
// apiCSP (or the set's own, when it is not helmet's default: a scope that
// wrote its own policy keeps it everywhere), and the headers the set adds
// beyond helmet's browser-only ones (Permissions-Policy, say).
func renderSecurity(set SecurityHeaders) *renderedSecurity {
	rs := &renderedSecurity{}
	helmet := SecurityHeaders{}
	for k, v := range HelmetHeaders() {
		helmet[http.CanonicalHeaderKey(k)] = v
	}
	for k, v := range set {
		if v == "" {
			continue
		}
		k = http.CanonicalHeaderKey(k)
		hv := headerValue{k, []string{v}}
		switch {
		case k == "Strict-Transport-Security":
			rs.hsts = hv.value
			continue
		case k == "Content-Security-Policy":
			if v == helmet[k] {
				rs.other = append(rs.other, headerValue{k, []string{apiCSP}})
			} else {
				rs.other = append(rs.other, hv)
			}
		case slices.Contains(otherKeys[:], k):
			rs.other = append(rs.other, hv)
		case helmet[k] == "":
			rs.other = append(rs.other, hv) // the set's own addition
		}
		rs.document = append(rs.document, hv)
	}
	byKey := func(a, b headerValue) int { return strings.Compare(a.key, b.key) }
	slices.SortFunc(rs.document, byKey)
	slices.SortFunc(rs.other, byKey)
	rs.documentBlock, rs.documentNames = renderBlock(rs.document)
	rs.otherBlock, rs.otherNames = renderBlock(rs.other)
	return rs
}

// renderSecurityAsGiven renders a set the program gave (SetSecurityHeaders,
// the Security layer): every response gets all of it, documents or not.
func renderSecurityAsGiven(set SecurityHeaders) *renderedSecurity {
	rs := renderSecurity(set)
	rs.other, rs.otherBlock, rs.otherNames = rs.document, rs.documentBlock, rs.documentNames
	return rs
}

// withNonce returns csp with 'nonce-<nonce>' added to its script-src
// directive (one is appended if there is none).
func withNonce(csp, nonce string) string {
	src := " 'nonce-" + nonce + "'"
	dirs := strings.Split(csp, ";")
	for i, d := range dirs {
		if name, _, _ := strings.Cut(strings.TrimSpace(d), " "); name == "script-src" {
			dirs[i] = strings.TrimRight(d, " ") + src
			return strings.Join(dirs, ";")
		}
	}
	return csp + ";script-src 'self'" + src
}

// CSPNonce returns a fresh, cryptographically random nonce for this request
// and adds it to the script-src directive of the response's
// Content-Security-Policy when the response is a document (HTML; see
// SecurityHeaders), so that <script nonce="..."> elements of this page run
// and injected ones do not. Call it before the response starts; afterwards
// it returns "". Requests that do not call it pay nothing; a call costs 16
// random bytes, their encoding and, for the document, the rebuilt header
// value. The nonce joins the CSP the response carries, the scope's or one the
// handler set itself (as the api docs page does); without any (Bare, no CSP
// set) the nonce is returned and nothing is set.
func (c *Ctx) CSPNonce() string {
	if c.nonce != "" {
		return c.nonce
	}
	if c.rw.status != 0 {
		return ""
	}
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read does not fail on supported platforms
	c.nonce = base64.StdEncoding.EncodeToString(raw[:])
	return c.nonce
}
