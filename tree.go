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
	lit     string  // literal segment of this node (unescaped)
	first   []byte  // first byte of each static child's literal
	statics []*node // literal children, parallel to first
	wild    *node   // "{name}" child
	multi   *endpoint
	end     *endpoint
}

// endpoint holds the routes of all patterns with the same path shape.
type endpoint struct {
	byMethod []*route // indexed by method id
	any      *route   // pattern without a method
	mask     uint64   // ids with a route in byMethod
}

func (n *node) child(lit string) *node {
	for i, c := range n.statics {
		if c.lit == lit {
			return n.statics[i]
		}
	}
	c := &node{lit: lit}
	n.statics = append(n.statics, c)
	n.first = append(n.first, firstByte(lit))
	return c
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// insert adds rt at the position its pattern's segments lead to.
func (n *node) insert(rt *route, numMethods int) {
	for _, s := range rt.pat.segs {
		switch {
		case s.multi:
			if n.multi == nil {
				n.multi = &endpoint{byMethod: make([]*route, numMethods)}
			}
			n.multi.add(rt)
			return
		case s.wild:
			if n.wild == nil {
				n.wild = &node{}
			}
			n = n.wild
		default:
			n = n.child(s.lit)
		}
	}
	if n.end == nil {
		n.end = &endpoint{byMethod: make([]*route, numMethods)}
	}
	n.end.add(rt)
}

func (e *endpoint) add(rt *route) {
	if rt.method < 0 {
		e.any = rt
		return
	}
	e.byMethod[rt.method] = rt
	e.mask |= 1 << rt.method
}

// matcher carries one lookup's inputs and its captured wildcard values.
type matcher struct {
	method  int      // method id, -1 for a method no route registered
	head    bool     // a HEAD request, which GET routes also serve
	collect bool     // record the methods of every matching endpoint, accept none
	escaped bool     // path is in escaped form: unescape segments with '%'
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
// methods e would have accepted.
func (m *matcher) accept(e *endpoint) *route {
	if e == nil {
		return nil
	}
	if !m.collect {
		if m.method >= 0 {
			if rt := e.byMethod[m.method]; rt != nil {
				return rt
			}
		}
		if m.head {
			if rt := e.byMethod[mGET]; rt != nil {
				return rt
			}
		}
		if e.any != nil {
			return e.any
		}
	}
	m.mask |= e.mask
	return nil
}

// lookup matches path, the rest of the request path ("" or starting with
// '/'), below n.
func (n *node) lookup(path string, m *matcher) *route {
	if path == "" {
		return m.accept(n.end)
	}
	var seg, rest string
	if path == "/" {
		seg = "/"
	} else {
		seg = path[1:]
		if i := strings.IndexByte(seg, '/'); i >= 0 {
			seg, rest = seg[:i], seg[i:]
		}
		if m.escaped {
			seg = unescapeSegment(seg)
		}
	}
	if seg != "" {
		b := seg[0]
		for i, f := range n.first {
			if f == b && n.statics[i].lit == seg {
				if rt := n.statics[i].lookup(rest, m); rt != nil {
					return rt
				}
				break
			}
		}
	}
	if n.wild != nil && seg != "/" {
		k := m.n
		m.push(seg)
		if rt := n.wild.lookup(rest, m); rt != nil {
			return rt
		}
		m.n = k
	}
	if n.multi != nil {
		k := m.n
		v := path[1:]
		if m.escaped {
			v = unescapeSegment(v)
		}
		m.push(v)
		if rt := m.accept(n.multi); rt != nil {
			return rt
		}
		m.n = k
	}
	return nil
}
