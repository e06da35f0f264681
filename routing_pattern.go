package plinth

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/plinth-go/plinth/internal/httpsyntax"
)

// pattern is a parsed route pattern in Go 1.22 ServeMux syntax: an optional
// method, then a path of segments. Host patterns are not supported.
type pattern struct {
	str    string // the pattern as registered (with group prefix applied)
	method string // "" matches every method
	segs   []segment
	loc    string // file:line of the registering call, for conflict messages
	warn   string // logged at Build: a segment in another router's syntax
}

// segment is one path segment of a pattern.
//
//   - literal: lit holds the unescaped text; the trailing "{$}" is the literal "/".
//   - single wildcard "{name}": wild set, lit holds the name.
//   - multi wildcard "{name...}" or a trailing slash: multi set, lit holds the
//     name ("" for the anonymous one a trailing slash stands for).
type segment struct {
	lit   string
	wild  bool
	multi bool
}

func (p *pattern) last() segment { return p.segs[len(p.segs)-1] }

// wildcardSlots returns, for each value the router captures for p, the
// wildcard's name ("" for the anonymous multi wildcard of a trailing slash).
func (p *pattern) wildcardSlots() []string {
	var names []string
	for _, s := range p.segs {
		if s.wild || s.multi {
			names = append(names, s.lit)
		}
	}
	return names
}

// parsePattern parses s. Its rules are ServeMux's: the method, if any, is a
// token followed by blanks; the path starts with '/'; a wildcard fills a whole
// segment; "{x...}" and "{$}" may only end the path; names are Go identifiers
// and unique; a method-specific pattern must be a clean path.
func parsePattern(s string) (*pattern, error) {
	if s == "" {
		return nil, errors.New("empty pattern")
	}
	method, rest := "", s
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		method, rest = s[:i], strings.TrimLeft(s[i+1:], " \t")
		if !httpsyntax.IsToken(method) {
			return nil, fmt.Errorf("invalid method %q", method)
		}
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		if rest == "" {
			return nil, errors.New("path must start with '/'")
		}
		return nil, fmt.Errorf("patterns start with /: write %q", "/"+rest)
	}
	if slash > 0 {
		if strings.IndexByte(rest[:slash], '{') >= 0 {
			return nil, errors.New("path must start with '/' (a wildcard comes before the first '/')")
		}
		if !strings.Contains(rest[:slash], ".") {
			// "users/{id}": a path missing its leading slash, not a host
			// (a host pattern names a domain, "example.com/x").
			return nil, fmt.Errorf("patterns start with /: write %q", "/"+rest)
		}
		return nil, fmt.Errorf("host %q in pattern: host patterns are not supported; mount a host switch instead", rest[:slash])
	}
	if method != "" && method != "CONNECT" && rest != cleanPath(rest) {
		return nil, errors.New("path is not clean (it has '//', '.' or '..' segments) and could never match")
	}
	p := &pattern{str: s, method: method}
	seen := map[string]bool{}
	for rest != "" {
		rest = rest[1:] // the slash
		if rest == "" {
			p.segs = append(p.segs, segment{multi: true})
			break
		}
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		text := rest[:end]
		rest = rest[end:]
		open := strings.IndexByte(text, '{')
		if open < 0 {
			p.segs = append(p.segs, segment{lit: unescapeSegment(text)})
			continue
		}
		if open != 0 || text[len(text)-1] != '}' {
			return nil, fmt.Errorf("segment %q: a wildcard must fill the whole segment", text)
		}
		name := text[1 : len(text)-1]
		if name == "$" {
			if rest != "" {
				return nil, errors.New("{$} must end the pattern")
			}
			p.segs = append(p.segs, segment{lit: "/"})
			break
		}
		name, multi := strings.CutSuffix(name, "...")
		if multi && rest != "" {
			return nil, fmt.Errorf("{%s...} must end the pattern", name)
		}
		if !isIdent(name) {
			return nil, fmt.Errorf("wildcard name %q is not a Go identifier", name)
		}
		if seen[name] {
			return nil, fmt.Errorf("duplicate wildcard name %q", name)
		}
		seen[name] = true
		p.segs = append(p.segs, segment{lit: name, wild: !multi, multi: multi})
	}
	return p, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

func unescapeSegment(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	u, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return u
}

// relation says how the request sets matched by two patterns compare.
type relation uint8

const (
	equal      relation = iota // the same requests
	wider                      // the first matches all the second does, and more
	narrower                   // the second matches all the first does, and more
	disjoint                   // no request matches both
	overlapped                 // some requests match both, neither contains the other
)

func (r relation) inverse() relation {
	switch r {
	case wider:
		return narrower
	case narrower:
		return wider
	}
	return r
}

// combine merges the relations of two independent parts (method and path, or
// successive segments) into the relation of the whole.
func combine(a, b relation) relation {
	switch a {
	case equal:
		return b
	case disjoint:
		return disjoint
	case overlapped:
		if b == disjoint {
			return disjoint
		}
		return overlapped
	}
	// a is wider or narrower
	switch b {
	case equal:
		return a
	case a.inverse():
		return overlapped
	}
	return b
}

func compareMethods(m1, m2 string) relation {
	switch {
	case m1 == m2:
		return equal
	case m1 == "":
		return wider
	case m2 == "":
		return narrower
	case m1 == "GET" && m2 == "HEAD": // GET also serves HEAD
		return wider
	case m1 == "HEAD" && m2 == "GET":
		return narrower
	}
	return disjoint
}

func compareSegments(a, b segment) relation {
	switch {
	case a.multi && b.multi:
		return equal
	case a.multi:
		return wider
	case b.multi:
		return narrower
	case a.wild && b.wild:
		return equal
	case a.wild:
		if b.lit == "/" { // a wildcard never matches the final "/" of {$}
			return disjoint
		}
		return wider
	case b.wild:
		if a.lit == "/" {
			return disjoint
		}
		return narrower
	case a.lit == b.lit:
		return equal
	}
	return disjoint
}

func comparePaths(p1, p2 *pattern) relation {
	s1, s2 := p1.segs, p2.segs
	if len(s1) != len(s2) && !p1.last().multi && !p2.last().multi {
		return disjoint
	}
	rel := equal
	for len(s1) > 0 && len(s2) > 0 {
		rel = combine(rel, compareSegments(s1[0], s2[0]))
		if rel == disjoint {
			return disjoint
		}
		s1, s2 = s1[1:], s2[1:]
	}
	switch {
	case len(s1) == 0 && len(s2) == 0:
		return rel
	case len(s1) < len(s2) && p1.last().multi:
		return combine(rel, wider)
	case len(s2) < len(s1) && p2.last().multi:
		return combine(rel, narrower)
	}
	return disjoint
}

func compare(p1, p2 *pattern) relation {
	m := compareMethods(p1.method, p2.method)
	if m == disjoint {
		return disjoint
	}
	return combine(m, comparePaths(p1, p2))
}

// conflictError explains why two patterns cannot both be registered, naming
// both and where each was registered.
func conflictError(newP, old *pattern) error {
	var why string
	m := compareMethods(newP.method, old.method)
	pr := comparePaths(newP, old)
	switch {
	case combine(m, pr) == equal:
		why = "they match exactly the same requests"
	case pr == overlapped:
		why = fmt.Sprintf("both match some paths, such as %q, and neither is more specific than the other", commonPath(newP.segs, old.segs))
	case m == wider:
		why = fmt.Sprintf("%s matches more methods than %s but has a more specific path", newP.str, old.str)
	default:
		why = fmt.Sprintf("%s matches fewer methods than %s but has a more general path", newP.str, old.str)
	}
	return fmt.Errorf("pattern %q (registered at %s) conflicts with pattern %q (registered at %s): %s",
		newP.str, newP.loc, old.str, old.loc, why)
}

// commonPath builds a request path matched by both segment lists, which are
// known to overlap.
func commonPath(a, b []segment) string {
	var sb strings.Builder
	write := func(s segment) {
		sb.WriteByte('/')
		if !s.multi && s.lit != "/" {
			sb.WriteString(s.lit)
		}
	}
	for len(a) > 0 && len(b) > 0 {
		x, y := a[0], b[0]
		if x.multi || (x.wild && !y.multi) {
			x = y // b is at least as specific here
		}
		write(x)
		if x.multi {
			return sb.String()
		}
		a, b = a[1:], b[1:]
	}
	rest := a
	if len(rest) == 0 {
		rest = b
	}
	for _, s := range rest {
		write(s)
	}
	if sb.Len() == 0 {
		return "/"
	}
	return sb.String()
}
