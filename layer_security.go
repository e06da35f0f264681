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
// writes on every response of a scope, from values rendered at startup. An
// empty value removes the header. Strict-Transport-Security is only sent over
// TLS.
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

// renderedSecurity is the header set of one scope, ready to write.
type renderedSecurity struct {
	headers []headerValue // sent on every response
	hsts    []string      // sent over TLS only; nil for none
}

// write sets the headers on h, HSTS only when the client reached the
// service over HTTPS (Ctx.Secure).
func (rs *renderedSecurity) write(c *Ctx, h http.Header) {
	for _, hv := range rs.headers {
		h[hv.key] = hv.value
	}
	if rs.hsts != nil && c.Secure() {
		h["Strict-Transport-Security"] = rs.hsts
	}
}

// securityFor renders the effective set of g: the helmet defaults edited by
// g's ancestors' calls, root first.
func securityFor(g *Router) *renderedSecurity {
	var chain []*Router
	for r := g; r != nil; r = r.parent {
		chain = append(chain, r)
	}
	set := HelmetHeaders()
	for _, r := range slices.Backward(chain) {
		for _, e := range r.security {
			if e.set != nil {
				set = maps.Clone(e.set)
			} else {
				set[e.name] = e.value
			}
		}
	}
	return renderSecurity(set)
}

// renderSecurity renders set, an empty value meaning no header.
func renderSecurity(set SecurityHeaders) *renderedSecurity {
	rs := &renderedSecurity{}
	for k, v := range set {
		if v == "" {
			continue
		}
		k = http.CanonicalHeaderKey(k)
		if k == "Strict-Transport-Security" {
			rs.hsts = []string{v}
			continue
		}
		rs.headers = append(rs.headers, headerValue{k, []string{v}})
	}
	slices.SortFunc(rs.headers, func(a, b headerValue) int { return strings.Compare(a.key, b.key) })
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
// Content-Security-Policy, so that <script nonce="..."> elements of this
// response run and injected ones do not. Call it before the response starts;
// afterwards it returns "" (the header is gone). Requests that do not call it
// pay nothing; a call costs 16 random bytes, their encoding and the rebuilt
// header value. Without a Content-Security-Policy header (Bare, the security
// layer skipped, or the header removed) it returns a nonce and sets nothing.
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
	h := c.rw.w.Header()
	if v := h["Content-Security-Policy"]; len(v) == 1 {
		h["Content-Security-Policy"] = []string{withNonce(v[0], c.nonce)}
	}
	return c.nonce
}
