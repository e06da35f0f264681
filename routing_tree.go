package plinth

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

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
	// jump gives, for nodes with many literal children, the index of the
	// first edge whose literal starts with a byte (len(edges) for none).
	jump *[256]uint8
}

// jumpMin is the number of literal children from which a node gets a jump
// table: below it the sorted scan reaches its candidates as fast.
const jumpMin = 8

// sortEdges orders the literal children of n and of every node below it by
// first byte, keeping their registration order otherwise, and builds the
// jump tables. At most one literal child matches a segment, so the order
// changes no result; it lets a lookup stop scanning past the candidates. It
// runs once, when the table is built.
func (n *node) sortEdges() {
	idx := make([]int, len(n.edges))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return int(n.first[a]) - int(n.first[b]) })
	edges := make([]edge, len(n.edges))
	first := make([]byte, len(n.edges))
	for i, j := range idx {
		edges[i], first[i] = n.edges[j], n.first[j]
	}
	n.edges, n.first = edges, string(first)
	n.jump = nil
	if len(edges) >= jumpMin && len(edges) < 256 {
		n.jump = new([256]uint8)
		for b := range n.jump {
			i, _ := slices.BinarySearch(first, byte(b))
			n.jump[b] = uint8(i)
		}
	}
	for _, e := range n.edges {
		e.node.sortEdges()
	}
	for _, c := range [...]*node{n.slash, n.wild} {
		if c != nil {
			c.sortEdges()
		}
	}
}

// edge is a literal child, kept inline so that the search reads one array.
type edge struct {
	lit      string // the literal segment (unescaped)
	node     *node
	unclean  bool // lit is "", "." or ".." (from a pattern without a method)
	escSlash bool // lit holds a '/' (from "%2F"): only an escaped path can match it
	// word holds the first (up to) 8 bytes of lit as a little-endian word,
	// wmask the bits of those bytes, and word2 and wmask2 the next 8: the
	// fast lookup compares them with a load or two instead of a call.
	word, wmask, word2, wmask2 uint64
}

// newEdge returns the literal child edge for lit.
func newEdge(lit string, n *node) edge {
	e := edge{lit: lit, node: n, unclean: lit == "" || lit == "." || lit == "..", escSlash: strings.Contains(lit, "/")}
	e.word, e.wmask = litWord(lit)
	if len(lit) > 8 {
		e.word2, e.wmask2 = litWord(lit[8:])
	}
	return e
}

// litWord returns the first (up to) 8 bytes of s as a little-endian word
// and the mask of their bits.
func litWord(s string) (word, mask uint64) {
	var b [8]byte
	k := copy(b[:], s)
	mask = ^uint64(0)
	if k < 8 {
		mask = 1<<(8*k) - 1
	}
	return binary.LittleEndian.Uint64(b[:]), mask
}

// load64 returns the 8 bytes of s from i on as a little-endian word, with
// no bounds check: the caller ensures i+8 <= len(s). unsafe pays here: the
// same word built from s[i:i+8]'s eight bytes (which the compiler fuses into
// one load, behind the slice's bounds checks) cost 188,093 instructions per
// GitHub pass against 177,790, and 20,179 against 19,104 on parse-api
// (bench/router-gate.sh, both variants measured in one session).
func load64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))[:])
}

// litAt reports whether path (rooted, with at least len(e.lit) bytes after
// its slash) holds e.lit right after its slash. A path with 8 bytes after
// the slash is compared a word at a time first: most mismatches and every
// literal of up to 8 bytes (16 when the path has 16 bytes after the slash)
// cost a load or two.
func (e *edge) litAt(path string) bool {
	if len(path) >= 9 {
		if (load64(path, 1)^e.word)&e.wmask != 0 {
			return false
		}
		if len(e.lit) <= 8 {
			return true
		}
		if len(e.lit) <= 16 && len(path) >= 17 {
			return (load64(path, 9)^e.word2)&e.wmask2 == 0
		}
	}
	return path[1:1+len(e.lit)] == e.lit
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
	n.edges = append(n.edges, newEdge(lit, c))
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
	generic bool     // the lookup is lookup (generic mode), not find (fast mode)
	escaped bool     // path is in escaped form: unescape segments with '%'
	unclean bool     // find met a "", "." or ".." segment: the result is void
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
// '/'), below n, in the generic mode: it splits every segment first and
// unescapes it when the path is in escaped form; it serves escaped paths,
// CONNECT requests, paths already cleaned and the probes for redirects and
// Allow. The fast mode, for the decoded path of most requests, is find.
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
		seg, rest := splitSegment(path)
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
		var next *node // the literal child matching the first segment
		b := firstByte(seg)
		for i := 0; i < len(n.first); i++ {
			if n.first[i] == b && n.edges[i].lit == seg {
				next = n.edges[i].node
				break
			}
		}
		if next != nil {
			if !n.alt { // nothing to backtrack to: iterate, do not recurse
				n, path = next, rest
				continue
			}
			k := m.n
			if rt := next.lookup(rest, m); rt != nil {
				return rt
			}
			m.n = k // values a failed branch left pushed
		}
		if !n.alt {
			return nil
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

// find is lookup in the fast mode (m.generic unset), for the decoded path
// of a request that is not CONNECT, with no escapes that matter: the same
// walk, but a literal child is matched by comparing its literal with the
// start of the path (a word at a time, see litAt), so static segments are
// never scanned byte by byte, and the segment of a wildcard value is found
// a word at a time. A segment that would make the path unclean ("//",
// "/./", "/../") sets m.unclean and fails the lookup, because the caller
// must redirect.
func (n *node) find(path string, m *matcher) *route {
walk:
	for {
		if len(path) <= 1 {
			if path == "" {
				return m.accept(n.end)
			}
			// "/": a path here is "" or starts with '/'
			if n.slash != nil {
				if rt := m.accept(n.slash.end); rt != nil {
					return rt
				}
			}
			return n.lookupMulti("", m)
		}
		b := path[1]
		if b == '/' {
			m.unclean = true
			return nil
		}
		// The literal child matching the first segment. Candidates share
		// the segment's first byte; the byte after the literal must end the
		// segment, which rules out most of them before their literal is
		// compared. Edges are sorted by first byte (see sortEdges), so the
		// candidates are contiguous: the scan starts at the first one when
		// the node has a jump table, and stops past them.
		i := 0
		if n.jump != nil {
			i = int(n.jump[b])
		}
		for ; i < len(n.first); i++ {
			if f := n.first[i]; f != b {
				if f > b {
					break
				}
				continue
			}
			e := &n.edges[i]
			end := 1 + len(e.lit)
			if len(path) < end || (len(path) > end && path[end] != '/') || !e.litAt(path) || e.escSlash {
				continue
			}
			if e.unclean {
				m.unclean = true
				return nil
			}
			if !n.alt { // nothing to backtrack to: iterate, do not recurse
				n, path = e.node, path[end:]
				continue walk
			}
			k := m.n
			if rt := e.node.find(path[end:], m); rt != nil {
				return rt
			}
			m.n = k // values a failed branch left pushed
			break
		}
		if !n.alt {
			return nil
		}
		{
			// splitSegment, a word at a time when the path has 8 bytes
			// after the slash: the first word is searched inline, and
			// splitLong goes on for a segment longer than that.
			var seg, rest string
			if len(path) >= 9 {
				if t := slashBits(load64(path, 1)); t != 0 {
					j := 1 + bits.TrailingZeros64(t)>>3
					seg, rest = path[1:j], path[j:]
				} else {
					seg, rest = splitLong(path)
				}
			} else {
				seg, rest = splitSegment(path)
			}
			if seg == "." || seg == ".." {
				m.unclean = true
				return nil
			}
			if n.wild != nil {
				k := m.n
				m.push(seg)
				if n.multi == nil {
					// A failure below leaves values pushed; whoever
					// backtracks past this point resets m.n to its own mark.
					n, path = n.wild, rest
					continue
				}
				if rt := n.wild.find(rest, m); rt != nil {
					return rt
				}
				m.n = k
			}
			return n.lookupMulti(path[1:], m)
		}
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
// The fast lookup searches a word at a time instead (see lookup).
func splitSegment(path string) (seg, rest string) {
	seg = path[1:]
	for i := 0; i < len(seg); i++ {
		if seg[i] == '/' {
			return seg[:i], seg[i:]
		}
	}
	return seg, ""
}

// slashBits flags the '/' bytes of the little-endian word x: the lowest
// set bit of the result is the high bit of the first '/' byte (bytes above
// it may be flagged wrongly), and the result is 0 when x holds no '/'.
func slashBits(x uint64) uint64 {
	const ones, highs, slashes = 0x0101010101010101, 0x8080808080808080, 0x2f2f2f2f2f2f2f2f
	x ^= slashes // a '/' byte is now a zero byte
	return (x - ones) &^ x & highs
}

// splitLong is splitSegment for a path whose first 8 bytes after the slash
// hold no '/'. The last word may overlap bytes already searched.
func splitLong(path string) (seg, rest string) {
	i := 9
	for ; i+8 <= len(path); i += 8 {
		if t := slashBits(load64(path, i)); t != 0 {
			j := i + bits.TrailingZeros64(t)>>3
			return path[1:j], path[j:]
		}
	}
	if i < len(path) {
		i = len(path) - 8 // >= 1: the bytes of this word already searched held no '/'
		if t := slashBits(load64(path, i)); t != 0 {
			j := i + bits.TrailingZeros64(t)>>3
			return path[1:j], path[j:]
		}
	}
	return path[1:], ""
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
