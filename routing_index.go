package plinth

// routingIndex finds the registered patterns that a new pattern could
// conflict with, so that registration compares each new pattern with a few
// candidates instead of every route: n registrations cost about n
// comparisons, not n²/2. It follows the idea of net/http's routing index,
// and indexes the patterns that end in a multi wildcard too, where
// net/http compares every new pattern with all of them.
//
// Each pattern is indexed by the segments before its multi wildcard, if it
// has one: a literal under its text and position, a single wildcard under ""
// and its position; a pattern whose multi wildcard ("{x...}" or a trailing
// slash) starts at position k is also listed under k. Two patterns can only
// match a common path if, at every position both reach, their segments are
// the same literal or one of them is a wildcard; and at a position i where
// the new pattern has a literal, a pattern that ends before i cannot match
// the new pattern's paths unless its multi wildcard starts at or before i.
// So the candidates at i are the patterns with that literal or a wildcard
// at i and those whose multi wildcard starts at or before i; the new pattern
// takes the position where they are fewest.
type routingIndex struct {
	all      []*pattern
	segments map[indexKey][]*pattern
	multis   map[int][]*pattern // by the position where the multi wildcard starts
	offered  int                // candidates offered so far, for the tests
}

// indexKey is a segment position and its literal ("" for a wildcard).
type indexKey struct {
	pos int
	lit string
}

func (x *routingIndex) add(p *pattern) {
	if x.segments == nil {
		x.segments, x.multis = map[indexKey][]*pattern{}, map[int][]*pattern{}
	}
	x.all = append(x.all, p)
	for i, s := range p.segs {
		if s.multi {
			x.multis[i] = append(x.multis[i], p)
			break
		}
		k := indexKey{pos: i, lit: s.lit}
		if s.wild {
			k.lit = ""
		}
		x.segments[k] = append(x.segments[k], p)
	}
}

// candidates calls f with every registered pattern that may conflict with
// p, each once.
func (x *routingIndex) candidates(p *pattern, f func(*pattern)) {
	best, bestN, shorter := -1, 0, 0 // shorter: multis starting at or before i
	for i, s := range p.segs {
		if s.multi {
			break
		}
		shorter += len(x.multis[i])
		if s.wild {
			continue
		}
		n := len(x.segments[indexKey{pos: i, lit: s.lit}]) + len(x.segments[indexKey{pos: i}]) + shorter
		if best < 0 || n < bestN {
			best, bestN = i, n
		}
	}
	offer := func(ps []*pattern) {
		for _, old := range ps {
			x.offered++
			f(old)
		}
	}
	if best < 0 {
		offer(x.all) // no literal to narrow by
		return
	}
	offer(x.segments[indexKey{pos: best, lit: p.segs[best].lit}])
	offer(x.segments[indexKey{pos: best}])
	for k := 0; k <= best; k++ {
		offer(x.multis[k])
	}
}
