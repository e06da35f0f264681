// Package redact hides the passwords of database and store addresses (URLs
// and key/value DSNs) before they reach a log line or an error message. The
// core, data, the session and rate-limit stores and the observe modules use
// it: one function, so that every place hides the same things.
package redact

import (
	"net/url"
	"strings"
)

// Mask replaces a password.
const Mask = "xxxxx"

// DSN returns s, a URL (postgres://user:pw@host/db?password=pw,
// redis://:pw@host:6379/0) or a key/value DSN (host=h password=pw,
// password='p w'), with every password replaced by Mask: the userinfo's
// password (for redis://, rediss://, valkey:// and unix:// a userinfo
// without a colon too, which Redis clients read as a password), the
// values of the query's password and sslpassword, and the value of a
// password or sslpassword key. A string it cannot parse is redacted as
// well as its shape allows: over-masking is preferred to a leak.
func DSN(s string) string {
	sp := spans(s)
	if len(sp) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, p := range sp {
		b.WriteString(s[last:p[0]])
		b.WriteString(Mask)
		last = p[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Error returns err with every password of dsn (as DSN finds them, raw
// and percent-decoded) replaced by Mask in its message, for errors of
// libraries that quote the address they failed on (url.Parse does). It
// returns err itself when there is nothing to hide; errors.Is and
// errors.As see through the wrapper.
func Error(err error, dsn string) error {
	if err == nil {
		return nil
	}
	secs := secrets(dsn)
	if len(secs) == 0 {
		return err
	}
	msg := err.Error()
	for _, sec := range secs {
		msg = strings.ReplaceAll(msg, sec, Mask)
	}
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// secrets returns the passwords written in s, each raw and, when it
// differs, percent-decoded or unquoted, longest first (so that a password
// containing another is replaced whole).
func secrets(s string) []string {
	var out []string
	for _, p := range spans(s) {
		v := s[p[0]:p[1]]
		out = append(out, v)
		if d, err := url.PathUnescape(v); err == nil && d != v && d != "" {
			out = append(out, d)
		}
		if d, err := url.QueryUnescape(v); err == nil && d != v && d != "" {
			out = append(out, d)
		}
		if len(v) > 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			out = append(out, v[1:len(v)-1])
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// spans returns where the passwords of s are, as [start, end) offsets in
// increasing order; empty passwords are not secrets.
func spans(s string) [][2]int {
	var out [][2]int
	add := func(a, b int) {
		if b > a {
			out = append(out, [2]int{a, b})
		}
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !validScheme(scheme) {
		return kvSpans(s)
	}
	base := len(scheme) + 3
	// The authority ends at the last '@' before the query (a password may
	// hold '/', '?' or '#'); without one there is no userinfo.
	auth := rest
	if q := strings.IndexByte(auth, '?'); q >= 0 && strings.LastIndexByte(auth[:q], '@') >= 0 {
		auth = auth[:q]
	}
	qstart := 0
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		userinfo := auth[:at]
		if c := strings.IndexByte(userinfo, ':'); c >= 0 {
			add(base+c+1, base+at)
		} else if redisLike(scheme) {
			add(base, base+at)
		}
		qstart = at + 1
	}
	if q := strings.IndexByte(rest[qstart:], '?'); q >= 0 {
		pos := qstart + q + 1
		query := rest[pos:]
		if h := strings.IndexByte(query, '#'); h >= 0 {
			query = query[:h]
		}
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if passwordKey(k) {
				add(base+pos+len(k)+1, base+pos+len(k)+1+len(v))
			}
			pos += len(kv) + 1
		}
	}
	return out
}

// kvSpans returns where the values of the password keys of a key/value
// DSN are (libpq's syntax: key = value, the value bare or in single quotes
// with backslash escapes; a quoted value's span holds its quotes).
func kvSpans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		k := i
		for i < len(s) && s[i] != '=' && !isSpace(s[i]) {
			i++
		}
		key := s[k:i]
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			if i == k { // no progress: skip a character
				i++
			}
			continue
		}
		i++ // '='
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		v := i
		if i < len(s) && s[i] == '\'' {
			i++
			for i < len(s) && s[i] != '\'' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++ // the closing quote
		} else {
			for i < len(s) && !isSpace(s[i]) {
				i++
			}
		}
		i = min(i, len(s))
		if passwordKey(key) && i > v {
			out = append(out, [2]int{v, i})
		}
	}
	return out
}

func passwordKey(k string) bool {
	return strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword")
}
func redisLike(scheme string) bool {
	switch strings.ToLower(scheme) {
	case "redis", "rediss", "valkey", "valkeys", "unix":
		return true
	}
	return false
}

// validScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, '+', '-', '.').
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
