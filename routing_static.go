package plinth

import "math/bits"

// staticIndex finds the endpoint of a path that a pattern made only of
// literals matches in full. Such a pattern is the most specific one that can
// match the path, so when its endpoint accepts the method, the tree walk
// would end there too.
//
// It is an open-addressing table of at least twice as many slots as paths,
// keyed by a hash of the path's length and two of its bytes: a miss (most
// paths with wildcard values) usually costs the hash and one empty slot, a
// hit one string comparison. A Go map costs several times that per lookup
// (a full hash of the path, then its group probing), which showed on tables
// with many static routes.
type staticIndex struct {
	slots []staticSlot // one empty slot when no pattern is all-literal
	mask  uint         // len(slots)-1
	shift uint         // 64 - log2(len(slots))
}

type staticSlot struct {
	path string
	end  *endpoint // nil: an empty slot
}

// hash spreads the length and the middle and last bytes of path over the
// slots (Fibonacci hashing).
func (s *staticIndex) hash(path string) uint {
	n := len(path)
	if n == 0 {
		return 0
	}
	k := uint64(n)<<16 | uint64(path[n-1])<<8 | uint64(path[n>>1])
	return uint((k * 0x9E3779B97F4A7C15) >> s.shift)
}

// build indexes every all-literal endpoint below root. Literals the fast
// lookup cannot match as they are ("", ".", "..", or holding an escaped
// slash) are left to the tree.
func (s *staticIndex) build(root *node) {
	var paths []staticSlot
	collectStatic(root, "", &paths)
	if len(paths) == 0 {
		// One empty slot, which every hash (shifted by 64: 0) finds: get
		// needs no test for an empty index.
		s.slots, s.mask, s.shift = make([]staticSlot, 1), 0, 64
		return
	}
	size := max(8, 1<<bits.Len(uint(2*len(paths)-1))) // a power of two >= 2*len(paths)
	s.slots = make([]staticSlot, size)
	s.mask = uint(size - 1)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for _, p := range paths {
		i := s.hash(p.path)
		for s.slots[i].end != nil {
			i = (i + 1) & s.mask
		}
		s.slots[i] = p
	}
}

func collectStatic(n *node, prefix string, out *[]staticSlot) {
	if n.end != nil && prefix != "" {
		*out = append(*out, staticSlot{path: prefix, end: n.end})
	}
	if n.slash != nil && n.slash.end != nil {
		*out = append(*out, staticSlot{path: prefix + "/", end: n.slash.end})
	}
	for _, e := range n.edges {
		if !e.unclean && !e.escSlash {
			collectStatic(e.node, prefix+"/"+e.lit, out)
		}
	}
}

// get returns the endpoint indexed for path (not empty), or nil. It is
// small enough to be inlined: a miss costs the hash and one slot.
func (s *staticIndex) get(path string) *endpoint {
	n := len(path) // hash without its test for ""
	k := uint64(n)<<16 | uint64(path[n-1])<<8 | uint64(path[n>>1])
	for i := uint((k * 0x9E3779B97F4A7C15) >> s.shift); ; i = (i + 1) & s.mask {
		if sl := &s.slots[i]; sl.end == nil || sl.path == path {
			return sl.end // nil for an empty slot
		}
	}
}
