package httpsyntax

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// varyStar is the rendered "Vary: *"; shared, never written into.
var varyStar = []string{"*"}

// varyCacheSlots is how many merge results a VaryNames remembers, and
// maxCachedLine the longest existing Vary line it remembers one for: the
// cache is bounded whatever the handlers send.
const (
	varyCacheSlots = 4
	maxCachedLine  = 256
)

// VaryNames is a list of field names to add to responses' Vary header,
// rendered once, for a middleware to build at construction and use on every
// response. It is safe for concurrent use; use it through its pointer.
//
// Header values it sets are shared between responses (their length equals
// their capacity, so an append by later code copies them): code that
// changes a response's Vary must replace the slice, as http.Header.Add and
// AddVary do, never write into it.
type VaryNames struct {
	names []string // trimmed, de-duplicated
	line  []string // names joined into one header line

	// cache remembers the result of merging names into an existing
	// single-line Vary (a value set by an outer middleware is the same
	// string on every response): the first varyCacheSlots distinct lines
	// seen, filled once and never evicted.
	cache [varyCacheSlots]atomic.Pointer[varyMerge]
}

// varyMerge is one remembered merge: Vary prev became line.
type varyMerge struct {
	prev string
	line []string
}

// NewVaryNames renders names (field names such as "Origin" or
// "Accept-Encoding") for VaryNames.Add. Duplicates, compared
// case-insensitively, are dropped; "*" absorbs every other name. It panics
// if names is empty or one of them is not an RFC 9110 token: the names are
// the program's, not a request's.
func NewVaryNames(names ...string) *VaryNames {
	if len(names) == 0 {
		panic("httpsyntax: NewVaryNames needs at least one field name")
	}
	v := &VaryNames{}
	for _, n := range names {
		n = TrimOWS(n)
		if !IsToken(n) {
			panic("httpsyntax: NewVaryNames: " + strconv.Quote(n) + " is not a field name")
		}
		if n == "*" {
			v.names, v.line = []string{"*"}, varyStar
			return v
		}
		if !slicesContainFold(v.names, n) {
			v.names = append(v.names, n)
		}
	}
	line := strings.Join(v.names, ", ")
	v.line = []string{line}
	return v
}

// Add adds v's names to h's Vary header, as one header line.
//
//   - No Vary yet: the pre-rendered line is set, allocating nothing.
//   - One line holding every name already (compared case-insensitively, as
//     list members), or "*": h is left alone, allocating nothing. A line
//     holding "*" among other members becomes "*".
//   - Otherwise the existing members and the missing names are merged into
//     one line, existing members first and as written, each once: several
//     existing lines are folded into one. A merge into a single existing
//     line is remembered, so that the next response whose Vary is the same
//     string (an outer middleware's value) gets the same shared result,
//     allocating nothing; an unremembered merge allocates the new line and
//     its slice.
func (v *VaryNames) Add(h http.Header) {
	cur := h["Vary"]
	switch len(cur) {
	case 0:
		h["Vary"] = v.line
		return
	case 1:
		if res, done := quickMerge(cur[0], v.names); done {
			if res != nil {
				h["Vary"] = res
			}
			return
		}
		prev := cur[0]
		free := -1 // the first empty slot
		for i := range v.cache {
			e := v.cache[i].Load()
			if e == nil {
				free = i
				break
			}
			if e.prev == prev {
				h["Vary"] = e.line
				return
			}
		}
		merged := merge(cur, v.names)
		if free >= 0 && len(prev) <= maxCachedLine {
			e := &varyMerge{prev: prev, line: merged}
			for i := free; i < len(v.cache); i++ {
				if v.cache[i].CompareAndSwap(nil, e) {
					break
				}
			}
		}
		h["Vary"] = merged
	default:
		if res := merge(cur, v.names); res != nil {
			h["Vary"] = res
		}
	}
}

// String returns the names v adds, de-duplicated, in order, as one header
// line ("Origin, Accept-Encoding").
func (v *VaryNames) String() string { return v.line[0] }

// AddVary adds field names to h's Vary header as one header line, for
// names known only per response (a middleware with fixed names should
// build a VaryNames once instead).
//
// Names already present, compared case-insensitively as list members, are
// not added again; existing members are kept as written, and several
// existing lines are folded into one; "*", existing or added, absorbs every
// other name and leaves "Vary: *". When a single existing line already holds
// every name (or "*"), nothing changes and nothing is allocated. Empty
// names are ignored; no names at all leave h alone. The names must be field
// names (RFC 9110 tokens); they are not checked.
func AddVary(h http.Header, names ...string) {
	if len(names) == 0 {
		return
	}
	cur := h["Vary"]
	if len(cur) == 1 {
		if res, done := quickMerge(cur[0], names); done {
			if res != nil {
				h["Vary"] = res
			}
			return
		}
	}
	if res := merge(cur, names); res != nil {
		h["Vary"] = res
	}
}

// quickMerge settles, without allocating, the merge of names into the
// single Vary line: done with a nil result when line needs no change, done
// with varyStar when the answer is "*", not done when a merge is needed.
func quickMerge(line string, names []string) (res []string, done bool) {
	if ListHas(line, "*") {
		if TrimOWS(line) == "*" {
			return nil, true
		}
		return varyStar, true
	}
	for _, n := range names {
		n = TrimOWS(n)
		switch {
		case n == "":
		case n == "*":
			return varyStar, true
		case !ListHas(line, n):
			return nil, false
		}
	}
	return nil, true
}

// merge renders the members of the Vary lines cur followed by names, each
// once (case-insensitively), as one new header line; varyStar when any of
// them is "*"; nil when there is no member at all.
func merge(cur, names []string) []string {
	n := 0
	for _, l := range cur {
		n += len(l) + 2
	}
	for _, s := range names {
		n += len(s) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range cur {
		for l != "" {
			var m string
			m, l, _ = strings.Cut(l, ",")
			if !addMember(&b, m) {
				return varyStar
			}
		}
	}
	for _, m := range names {
		if !addMember(&b, m) {
			return varyStar
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return []string{b.String()}
}

// addMember appends the list member m to b unless it is empty or b holds
// it already; it reports false for "*", which ends the merge.
func addMember(b *strings.Builder, m string) bool {
	m = TrimOWS(m)
	switch {
	case m == "":
	case m == "*":
		return false
	case !ListHas(b.String(), m):
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m)
	}
	return true
}

// ListHas reports whether the comma-separated list (a header field value
// such as Vary's or Connection's) has a member equal to name, compared
// case-insensitively after trimming spaces and tabs. It allocates nothing.
func ListHas(list, name string) bool {
	for list != "" {
		var m string
		m, list, _ = strings.Cut(list, ",")
		if strings.EqualFold(TrimOWS(m), name) {
			return true
		}
	}
	return false
}

func slicesContainFold(list []string, s string) bool {
	for _, e := range list {
		if strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}
