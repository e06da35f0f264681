package envconf

import (
	"slices"
	"strings"
)

// Prefix is what every Plinth variable starts with; TestPrefix marks the
// variables of the repository's own tests, never reported as unknown.
const (
	Prefix     = "PLINTH_"
	TestPrefix = "PLINTH_TEST_"
)

// Unknown returns, sorted, the PLINTH_* names set in environ (os.Environ's
// "NAME=value" form) that are not in known, PLINTH_TEST_* excepted, each
// with the known name nearest to it ("" when none is near).
func Unknown(environ []string, known []string) [][2]string {
	var out [][2]string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, Prefix) || strings.HasPrefix(name, TestPrefix) || slices.Contains(known, name) {
			continue
		}
		out = append(out, [2]string{name, Nearest(name, known)})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return slices.CompactFunc(out, func(a, b [2]string) bool { return a[0] == b[0] })
}

// Nearest returns the name in known closest to name by edit distance
// (insertions, deletions, substitutions and swaps of neighbours), if it is
// close enough to be the name meant: at most a third of the name's length
// past the prefix, and at most 4 edits. Ties go to the earlier name.
func Nearest(name string, known []string) string {
	best, bestD := "", 0
	limit := min(4, max(1, (len(name)-len(Prefix))/3))
	for _, k := range known {
		d := distance(name, k)
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the optimal string alignment distance of a and b.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
