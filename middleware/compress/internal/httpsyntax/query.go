package httpsyntax

import (
	"net/url"
	"strings"
)

// LookupQuery returns the value of the first pair of the raw query q (a
// URL's RawQuery, "a=1&b=x+y") whose key is name, unescaped, and whether
// there is one. It agrees with url.ParseQuery(q)[name][0]: pairs separated
// by '&', keys and values unescaped as by url.QueryUnescape ('+' is a
// space), and the pairs ParseQuery rejects skipped (empty, holding a ';',
// or with a malformed %-escape in the key or the value). Unlike
// ParseQuery it has no limit on the number of pairs (GODEBUG
// urlmaxqueryparams), since it keeps none.
//
// Keys are compared without being unescaped into memory, so a lookup
// allocates nothing, except to unescape a value holding '%' or '+'.
func LookupQuery(q, name string) (value string, ok bool) {
	for q != "" {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		if kv == "" || strings.IndexByte(kv, ';') >= 0 {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if !queryKeyIs(k, name) || !validEscapes(v) {
			continue
		}
		return UnescapeQuery(v)
	}
	return "", false
}

// UnescapeQuery is url.QueryUnescape reporting failure with false: s with
// its %-escapes decoded and '+' read as a space. A value without '%' or '+'
// is returned as it is, allocating nothing.
func UnescapeQuery(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}

// queryKeyIs reports whether the escaped query key k unescapes to name;
// false when k holds a malformed escape.
func queryKeyIs(k, name string) bool {
	if strings.IndexByte(k, '%') < 0 && strings.IndexByte(k, '+') < 0 {
		return k == name
	}
	j := 0
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch c {
		case '+':
			c = ' '
		case '%':
			if i+2 >= len(k) || !isHex(k[i+1]) || !isHex(k[i+2]) {
				return false
			}
			c = unhex(k[i+1])<<4 | unhex(k[i+2])
			i += 2
		}
		if j >= len(name) || name[j] != c {
			// Not name; a malformed escape later in k would make the
			// pair rejected anyway, which also means "not name".
			return false
		}
		j++
	}
	return j == len(name)
}

// validEscapes reports whether every '%' in s starts a two-digit hex
// escape, as url.QueryUnescape requires.
func validEscapes(s string) bool {
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			return true
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
		s = s[i+3:]
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
