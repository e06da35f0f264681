package plinth

import "strings"

// node is one position of the routing tree. The tree is keyed by path segment,
// not by method: every node that ends a pattern holds an endpoint with a fixed
// table of routes by method id. Lookup tries, at each position, the literal
// child, then the single wildcard, then the multi wildcard, backtracking on
// failure. Because registration rejects every pair of patterns that ServeMux
// would reject, the first route this order reaches is the most specific
// pattern that matches, which is the one ServeMux picks.
type node struct {
	first string    // first byte of each literal child's literal
	edges []edge    // literal children, parallel to first
	slash *node     // the "{$}" child: the path ends here with a slash
	wild  *node     // "{name}" child
	alt   bool      // wild or multi is set: a failed literal branch backtracks here
	multi *endpoint // "{name...}" or a trailing slash at this position
	end   *endpoint // patterns ending here
}

// edge is a literal child, kept inline so that the search reads one array.
type edge struct {
	lit      string // the literal segment (unescaped)
	node     *node
	unclean  bool // lit is "", "." or ".." (from a pattern without a method)
	escSlash bool // lit holds a '/' (from "%2F"): only an escaped path can match it
}

// endpoint holds the routes of all patterns with the same path shape.
type endpoint struct {
	// byMethod holds the routes by method id + 1; slot 0 stays nil for a
	// method no route registered (id -1), so lookup needs no range check.
	byMethod []*route
	any      *route // pattern without a method
	mask     uint64 // ids with a method-specific route
	multi    bool   // the patterns end in a multi wildcard
}

func (n *node) child(lit string) *node {
	if lit == "/" {
		if n.slash == nil {
			n.slash = &node{}
		}
		return n.slash
	}
	for _, e := range n.edges {
		if e.lit == lit {
			return e.node
		}
	}
	c := &node{}
	n.edges = append(n.edges, edge{lit: lit, node: c,
		unclean: lit == "" || lit == "." || lit == "..", escSlash: strings.Contains(lit, "/")})
	n.first += string([]byte{firstByte(lit)})
	return c
}

func firstByte(s string) byte {
	if s == "" {
		return '/' // an empty segment is followed by the next slash
	}
	return s[0]
}

// insert adds rt at the position its pattern's segments lead to.
func (n *node) insert(rt *route, numMethods int) {
	for _, s := range rt.pat.segs {
		switch {
		case s.multi:
			if n.multi == nil {
				n.multi = &endpoint{byMethod: make([]*route, numMethods+1), multi: true}
				n.alt = true
			}
			n.multi.add(rt)
			return
		case s.wild:
			if n.wild == nil {
				n.wild = &node{}
				n.alt = true
			}
			n = n.wild
		default:
			n = n.child(s.lit)
		}
	}
	if n.end == nil {
		n.end = &endpoint{byMethod: make([]*route, numMethods+1)}
	}
	n.end.add(rt)
}

func (e *endpoint) add(rt *route) {
	if rt.method < 0 {
		e.any = rt
		return
	}
	e.byMethod[rt.method+1] = rt
	e.mask |= 1 << rt.method
}

// matcher carries one lookup's inputs and its captured wildcard values.
type matcher struct {
	method  int      // method id, -1 for a method no route registered
	head    bool     // a HEAD request, which GET routes also serve
	collect bool     // record the methods of every matching endpoint, accept none
	generic bool     // split every segment, unescaping in escaped mode
	escaped bool     // path is in escaped form: unescape segments with '%'
	unclean bool     // fast mode met a "", "." or ".." segment: the result is void
	multi   bool     // the accepted route ends in a multi wildcard
	vals    []string // captured values, nil when not wanted
	n       int      // number of captured values
	mask    uint64   // methods seen on endpoints whose path matched
}

func (m *matcher) push(v string) {
	if m.vals != nil {
		m.vals[m.n] = v
	}
	m.n++
}

// accept returns e's route for the request method, or nil after noting the
// methods e would have accepted. It is small enough to be inlined.
func (m *matcher) accept(e *endpoint) *route {
	if e == nil {
		return nil
	}
	if !m.collect {
		rt := e.any
		if r := e.byMethod[m.method+1]; r != nil {
			rt = r
		} else if m.head && e.byMethod[mGET+1] != nil {
			rt = e.byMethod[mGET+1]
		}
		if rt != nil {
			m.multi = e.multi
			return rt
		}
	}
	m.mask |= e.mask
	return nil
}

// lookup matches path, the rest of the request path ("" or starting with
// '/'), below n.
//
// In the fast mode (the decoded path, with no escapes that matter) a literal
// child is matched by comparing its literal with the start of the path, so
// static segments are never scanned byte by byte; a segment that would make
// the path unclean ("//", "/./", "/../") sets m.unclean and fails the lookup,
// because the caller must redirect. The generic mode splits every segment
// first and unescapes it when the path is in escaped form; it serves escaped
// paths, CONNECT requests and paths already cleaned.
func (n *node) lookup(path string, m *matcher) *route {
	for {
		if path == "" {
			return m.accept(n.end)
		}
		if len(path) == 1 { // "/": a path here is "" or starts with '/'
			if n.slash != nil {
				if rt := m.accept(n.slash.end); rt != nil {
					return rt
				}
			}
			return n.lookupMulti("", m)
		}
		var seg, rest, nextPath string
		var next *node // the literal child matching the first segment
		if m.generic {
			seg, rest = splitSegment(path)
			if m.escaped {
				seg = unescapeSegment(seg)
			}
			if seg == "/" {
				// Only an escaped "%2F" segment unescapes to "/"; ServeMux
				// then takes it for the slash of "{$}", not a wildcard value.
				if n.slash != nil {
					if rt := n.slash.lookup(rest, m); rt != nil {
						return rt
					}
				}
				return n.lookupMulti(m.multiValue(path), m)
			}
			b := firstByte(seg)
			for i := 0; i < len(n.first); i++ {
				if n.first[i] == b && n.edges[i].lit == seg {
					next, nextPath = n.edges[i].node, rest
					break
				}
			}
		} else {
			b := path[1]
			if b == '/' {
				m.unclean = true
				return nil
			}
			// Candidates share the segment's first byte; the byte after the
			// literal must end the segment, which rules out most of them
			// before any string comparison. Small nodes scan inline, large
			// ones let IndexByte's vector loop find the first candidate.
			i := 0
			if len(n.first) > 8 {
				if i = strings.IndexByte(n.first, b); i < 0 {
					i = len(n.first)
				}
			}
			for ; i < len(n.first); i++ {
				if n.first[i] != b {
					continue
				}
				e := &n.edges[i]
				end := 1 + len(e.lit)
				if len(path) < end || (len(path) > end && path[end] != '/') || path[1:end] != e.lit {
					continue
				}
				if e.escSlash {
					continue // an escaped slash never matches a real one
				}
				if e.unclean {
					m.unclean = true
					return nil
				}
				next, nextPath = e.node, path[end:]
				break
			}
		}
		if next != nil {
			if !n.alt { // nothing to backtrack to: iterate, do not recurse
				n, path = next, nextPath
				continue
			}
			k := m.n
			if rt := next.lookup(nextPath, m); rt != nil {
				return rt
			}
			m.n = k // values a failed branch left pushed
		}
		if !n.alt {
			return nil
		}
		if !m.generic {
			seg, rest = splitSegment(path)
			if seg == "." || seg == ".." {
				m.unclean = true
				return nil
			}
		}
		if n.wild != nil {
			k := m.n
			m.push(seg)
			if n.multi == nil {
				// A failure below leaves values pushed; whoever backtracks
				// past this point resets m.n to its own mark.
				n, path = n.wild, rest
				continue
			}
			if rt := n.wild.lookup(rest, m); rt != nil {
				return rt
			}
			m.n = k
		}
		return n.lookupMulti(m.multiValue(path), m)
	}
}

// lookupMulti tries n's multi wildcard endpoint with v, the rest of the path.
func (n *node) lookupMulti(v string, m *matcher) *route {
	if n.multi == nil {
		return nil
	}
	k := m.n
	m.push(v)
	if rt := m.accept(n.multi); rt != nil {
		return rt
	}
	m.n = k
	return nil
}

// splitSegment splits path (starting with '/', longer than "/") into its
// first segment and the rest. Segments are short: a loop beats a call.
func splitSegment(path string) (seg, rest string) {
	seg = path[1:]
	for i := 0; i < len(seg); i++ {
		if seg[i] == '/' {
			return seg[:i], seg[i:]
		}
	}
	return seg, ""
}

// multiValue is the value a multi wildcard takes for path: the rest of the
// path without its leading slash, unescaped.
func (m *matcher) multiValue(path string) string {
	if m.escaped {
		return unescapeSegment(path[1:])
	}
	return path[1:]
}

// walk calls f with every endpoint below n.
func (n *node) walk(f func(*endpoint)) {
	if n.end != nil {
		f(n.end)
	}
	if n.multi != nil {
		f(n.multi)
	}
	for _, e := range n.edges {
		e.node.walk(f)
	}
	if n.wild != nil {
		n.wild.walk(f)
	}
}
