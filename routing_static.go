package plinth

// staticIndex finds, with one map lookup, the endpoint of a path that a
// pattern made only of literals matches in full. Such a pattern is the most
// specific one that can match the path, so when its endpoint accepts the
// method, the tree walk would end there too. A 1024-bit filter on the
// path's length, second and last bytes keeps most other paths from paying
// for the map.
type staticIndex struct {
	filter [16]uint64
	paths  map[string]*endpoint
}

func staticKey(path string) uint {
	// len(path) >= 1 always; path[1] is then the last byte again for "/".
	return (uint(len(path))*131 + uint(path[len(path)-1])*31 + uint(path[min(1, len(path)-1)])) & 1023
}

// build indexes every all-literal endpoint below n, whose path is prefix.
// Literals the fast lookup cannot match as they are ("", ".", "..", or
// holding an escaped slash) are left to the tree.
func (s *staticIndex) build(n *node, prefix string) {
	if n.end != nil && prefix != "" {
		if s.paths == nil {
			s.paths = map[string]*endpoint{}
		}
		s.paths[prefix] = n.end
		k := staticKey(prefix)
		s.filter[k>>6] |= 1 << (k & 63)
	}
	if n.slash != nil {
		s.build(&node{end: n.slash.end}, prefix+"/")
	}
	for _, e := range n.edges {
		if !e.unclean && !e.escSlash {
			s.build(e.node, prefix+"/"+e.lit)
		}
	}
}

// get returns the endpoint indexed for path, or nil.
func (s *staticIndex) get(path string) *endpoint {
	if s.paths == nil {
		return nil
	}
	if k := staticKey(path); s.filter[k>>6]&(1<<(k&63)) == 0 {
		return nil
	}
	return s.paths[path]
}
