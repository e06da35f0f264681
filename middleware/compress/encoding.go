package compress

import "strings"

// Content codings this package produces, by their HTTP names.
const (
	Brotli = "br"   // RFC 7932, github.com/andybalholm/brotli
	Zstd   = "zstd" // RFC 8878, github.com/klauspost/compress/zstd
	Gzip   = "gzip" // RFC 1952, github.com/klauspost/compress/gzip
)

// maxEncodings is the number of codings this package knows; negotiation
// keeps one q-value per coding on the stack.
const maxEncodings = 3

// qUnset marks a coding the Accept-Encoding field did not name.
const qUnset = -1

// acceptance is what an Accept-Encoding field says about the configured
// codings: the q-value (in thousandths, qUnset if not named) of each, of
// "identity" and of "*".
type acceptance struct {
	q        [maxEncodings]int16
	identity int16
	star     int16
}

// negotiate picks the coding for a request whose Accept-Encoding field
// lines are values, among names (the server's preference order).
//
// It returns the index in names of the coding to use, or -1 for none, and
// whether the client forbade the identity coding (identity;q=0, or *;q=0
// without an identity entry), in which case a response is compressed even
// below the minimum size when a coding is acceptable.
//
// The rules are RFC 9110 §12.5.3's: a coding is acceptable when its q-value,
// from its own entry or else from "*", is above 0; among acceptable codings
// the highest q-value wins, and the server's order breaks ties; names are
// case-insensitive and "x-gzip" means gzip. A missing or empty field means
// no coding. Elements that are not a token with optional parameters, or
// whose q is not a valid qvalue, are ignored; when a coding is named more
// than once the lowest q-value counts. It never allocates.
func negotiate(values []string, names []string) (idx int, identityForbidden bool) {
	var a acceptance
	for i := range a.q {
		a.q[i] = qUnset
	}
	a.identity, a.star = qUnset, qUnset
	for _, v := range values {
		a.parse(v, names)
	}
	idx, best := -1, int16(0)
	for i := range names {
		q := a.q[i]
		if q == qUnset {
			q = a.star
		}
		if q > best {
			idx, best = i, q
		}
	}
	id := a.identity
	if id == qUnset {
		id = a.star
	}
	return idx, id == 0
}

// parse reads one Accept-Encoding field line into a.
func (a *acceptance) parse(v string, names []string) {
	for v != "" {
		var elem string
		if i := strings.IndexByte(v, ','); i >= 0 {
			elem, v = v[:i], v[i+1:]
		} else {
			elem, v = v, ""
		}
		coding, params, _ := strings.Cut(elem, ";")
		coding = trimOWS(coding)
		if coding == "" || !isToken(coding) {
			continue
		}
		q, ok := parseParams(params)
		if !ok {
			continue
		}
		switch {
		case coding == "*":
			a.star = lower(a.star, q)
		case strings.EqualFold(coding, "identity"):
			a.identity = lower(a.identity, q)
		default:
			for i, n := range names {
				if strings.EqualFold(coding, n) || n == Gzip && strings.EqualFold(coding, "x-gzip") {
					a.q[i] = lower(a.q[i], q)
					break
				}
			}
		}
	}
}

// lower returns the lower of a q-value already recorded (or qUnset) and q.
func lower(old, q int16) int16 {
	if old == qUnset || q < old {
		return q
	}
	return old
}

// parseParams reads the parameters after a coding (";q=0.5;x=y") and
// returns the q-value in thousandths (1000 when absent), or false when a
// parameter is malformed.
func parseParams(params string) (int16, bool) {
	q := int16(1000)
	for params != "" {
		var p string
		if i := strings.IndexByte(params, ';'); i >= 0 {
			p, params = params[:i], params[i+1:]
		} else {
			p, params = params, ""
		}
		p = trimOWS(p)
		if p == "" {
			continue
		}
		name, val, ok := strings.Cut(p, "=")
		name, val = trimOWS(name), trimOWS(val)
		if !ok || name == "" || !isToken(name) {
			return 0, false
		}
		if strings.EqualFold(name, "q") {
			if q, ok = parseQ(val); !ok {
				return 0, false
			}
		}
	}
	return q, true
}

// parseQ parses an RFC 9110 qvalue ("0", "0.5", "1.000", at most three
// decimals, at most 1) into thousandths.
func parseQ(s string) (int16, bool) {
	if s == "" || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	q := int16(s[0]-'0') * 1000
	if len(s) == 1 {
		return q, true
	}
	if s[1] != '.' {
		return 0, false
	}
	mul := int16(100)
	for i := 2; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int16(c-'0') * mul
		mul /= 10
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}

// trimOWS removes spaces and tabs at both ends of s.
func trimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
