package httpsyntax

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/racetest"
)

var testOffered = []string{"zstd", "br", "gzip"}

func TestParseAcceptEncoding(t *testing.T) {
	all := testOffered
	tests := []struct {
		name      string
		field     []string // field lines; nil: no field
		offered   []string // nil: all
		want      string   // Best(0), "" for none
		q         []int    // weights of offered, when given
		forbidden bool     // identity forbidden
	}{
		{name: "no field", field: nil, want: "", q: []int{0, 0, 0}},
		{name: "empty field", field: []string{""}, want: ""},
		{name: "blank elements", field: []string{"  ,  , ", ","}, want: ""},
		{name: "one", field: []string{"gzip"}, want: "gzip", q: []int{0, 0, 1000}},
		{name: "browser", field: []string{"gzip, deflate, br, zstd"}, want: "zstd", q: []int{1000, 1000, 1000}},
		{name: "server order breaks ties", field: []string{"gzip, br"}, want: "br"},
		{name: "server order configurable", field: []string{"br, gzip, zstd"}, offered: []string{"gzip", "br"}, want: "gzip"},
		{name: "higher q wins", field: []string{"br;q=0.5, gzip;q=0.8"}, want: "gzip", q: []int{0, 500, 800}},
		{name: "q=0 refuses", field: []string{"zstd;q=0, br;q=0, gzip"}, want: "gzip"},
		{name: "all refused", field: []string{"br;q=0, gzip;q=0, zstd;q=0"}, want: ""},
		{name: "star", field: []string{"*"}, want: "zstd", q: []int{1000, 1000, 1000}},
		{name: "star with q", field: []string{"*;q=0.5"}, want: "zstd", q: []int{500, 500, 500}},
		{name: "star with an exclusion", field: []string{"*, zstd;q=0"}, want: "br"},
		{name: "own element beats star", field: []string{"*;q=0.1, gzip;q=0.9"}, want: "gzip", q: []int{100, 100, 900}},
		{name: "own element beats star, lower", field: []string{"*;q=0.9, zstd;q=0.1"}, want: "br", q: []int{100, 900, 900}},
		{name: "star 0 refuses the rest and identity", field: []string{"gzip, *;q=0"}, want: "gzip", forbidden: true},
		{name: "star 0, identity allowed", field: []string{"gzip, *;q=0, identity"}, want: "gzip"},
		{name: "star 0 alone", field: []string{"*;q=0"}, want: "", forbidden: true},
		{name: "identity only", field: []string{"identity"}, want: ""},
		{name: "identity forbidden", field: []string{"gzip, identity;q=0"}, want: "gzip", forbidden: true},
		{name: "identity forbidden alone", field: []string{"identity;q=0"}, want: "", forbidden: true},
		{name: "identity's weight is not compared", field: []string{"gzip;q=0.1, identity"}, want: "gzip"},
		{name: "case-insensitive", field: []string{"GZIP;Q=0.5, Br;q=0.4, IDENTITY;q=0"}, want: "gzip", forbidden: true},
		{name: "whitespace", field: []string{" \tgzip \t; q = 0.5 ,br ;q=0.6\t"}, want: "br"},
		{name: "x-gzip", field: []string{"x-gzip"}, want: "gzip"},
		{name: "X-GZIP", field: []string{"X-GZIP;q=0.3"}, want: "gzip", q: []int{0, 0, 300}},
		{name: "x-gzip without gzip offered", field: []string{"x-gzip"}, offered: []string{"br"}, want: ""},
		{name: "unknown codings only", field: []string{"compress, deflate, x-compress"}, want: ""},
		{name: "several lines", field: []string{"br;q=0", "gzip"}, want: "gzip"},

		// A coding named twice: the first element's weight, but q=0 refuses.
		{name: "repeated: first counts", field: []string{"br;q=0.9, br;q=0.5, gzip;q=0.8"}, want: "br", q: []int{0, 900, 800}},
		{name: "repeated: first counts, lower", field: []string{"br;q=0.5, br;q=0.9, gzip;q=0.8"}, want: "gzip", q: []int{0, 500, 800}},
		{name: "repeated: later q=0 refuses", field: []string{"br, br;q=0, gzip"}, want: "gzip", q: []int{0, 0, 1000}},
		{name: "repeated: earlier q=0 refuses", field: []string{"br;q=0, br, gzip;q=0.1"}, want: "gzip"},
		{name: "repeated across lines", field: []string{"br", "br;q=0"}, want: ""},
		{name: "repeated through the alias", field: []string{"x-gzip;q=0.3, gzip;q=0.9, br;q=0.5"}, want: "br", q: []int{0, 500, 300}},
		{name: "alias refuses", field: []string{"gzip, x-gzip;q=0"}, want: ""},
		{name: "repeated star", field: []string{"*;q=0.5, *, br;q=0.6"}, want: "br", q: []int{500, 600, 500}},
		{name: "repeated star, then 0", field: []string{"*, *;q=0"}, want: "", forbidden: true},
		{name: "repeated identity", field: []string{"identity, identity;q=0"}, want: "", forbidden: true},
		{name: "repeated identity, own first", field: []string{"identity;q=0.5, *;q=0"}, want: ""},

		{name: "q=1.000", field: []string{"gzip;q=1.000, br;q=0.999"}, want: "gzip"},
		{name: "q=0.001", field: []string{"gzip;q=0.001"}, want: "gzip", q: []int{0, 0, 1}},
		{name: "q=0.000 refuses", field: []string{"gzip;q=0.000"}, want: ""},
		{name: "q=0. refuses", field: []string{"gzip;q=0."}, want: ""},
		{name: "other parameters ignored", field: []string{"gzip;level=9;q=0.5"}, want: "gzip", q: []int{0, 0, 500}},
		{name: "empty parameters skipped", field: []string{"gzip;;q=0.5;"}, want: "gzip", q: []int{0, 0, 500}},

		// Malformed elements are ignored; the rest still counts.
		{name: "q above 1", field: []string{"br;q=1.5, gzip"}, want: "gzip"},
		{name: "q 1.001", field: []string{"br;q=1.001, gzip"}, want: "gzip"},
		{name: "q four decimals", field: []string{"br;q=0.1234, gzip"}, want: "gzip"},
		{name: "q negative", field: []string{"br;q=-1, gzip"}, want: "gzip"},
		{name: "q not a number", field: []string{"br;q=high, gzip"}, want: "gzip"},
		{name: "q empty", field: []string{"br;q=, gzip"}, want: "gzip"},
		{name: "q .5", field: []string{"br;q=.5, gzip"}, want: "gzip"},
		{name: "q exponent", field: []string{"br;q=1e-1, gzip"}, want: "gzip"},
		{name: "q twice", field: []string{"br;q=0;q=1, gzip"}, want: "gzip", q: []int{0, 0, 1000}},
		{name: "malformed element leaves star", field: []string{"*;q=0.2, br;q=2"}, want: "zstd", q: []int{200, 200, 200}},
		{name: "malformed q=0 does not refuse", field: []string{"identity;q=zero, gzip;q=nil, gzip"}, want: "gzip"},
		{name: "parameter without value", field: []string{"br;q, gzip"}, want: "gzip"},
		{name: "parameter without name", field: []string{"br;=1, gzip"}, want: "gzip"},
		{name: "space inside a name", field: []string{"b r, gzip"}, want: "gzip"},
		{name: "quoted name", field: []string{`"br", gzip`}, want: "gzip"},
		{name: "control characters", field: []string{"br\x00, \x7fgzip, zstd"}, want: "zstd"},
		{name: "only semicolons", field: []string{";;;"}, want: ""},
		{name: "non-ASCII", field: []string{"gzíp, br"}, want: "br"},
		// Accept-Encoding has no parameter but q: quoted strings are not parsed.
		{name: "quoted-string parameter", field: []string{`gzip;x="a;q=0", br;q=0.5`}, want: "br"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offered := tt.offered
			if offered == nil {
				offered = all
			}
			a := ParseAcceptEncoding(tt.field, offered)
			got := ""
			if i := a.Best(0); i >= 0 {
				got = offered[i]
			}
			if got != tt.want || a.IdentityForbidden() != tt.forbidden {
				t.Errorf("ParseAcceptEncoding(%q, %q): Best %q, identity forbidden %v; want %q, %v",
					tt.field, offered, got, a.IdentityForbidden(), tt.want, tt.forbidden)
			}
			if tt.q != nil {
				var q []int
				for i := range offered {
					q = append(q, a.Q(i))
				}
				if !slices.Equal(q, tt.q) {
					t.Errorf("ParseAcceptEncoding(%q, %q): weights %v, want %v", tt.field, offered, q, tt.q)
				}
			}
		})
	}
}

func TestAcceptEncodingBestSkip(t *testing.T) {
	a := ParseAcceptEncoding([]string{"gzip;q=0.5, br;q=0.8, zstd;q=0.5"}, testOffered)
	var order []string
	var skip uint
	for i := a.Best(0); i >= 0; i = a.Best(skip) {
		order = append(order, testOffered[i])
		skip |= 1 << i
	}
	if want := []string{"br", "zstd", "gzip"}; !slices.Equal(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
	var zero AcceptEncoding
	if zero.Best(0) != -1 || zero.IdentityForbidden() || zero.Q(0) != 0 || zero.Q(-1) != 0 || zero.Q(MaxCodings) != 0 {
		t.Error("the zero AcceptEncoding accepts something")
	}
	many := make([]string, MaxCodings+2)
	for i := range many {
		many[i] = "c" + strconv.Itoa(i)
	}
	a = ParseAcceptEncoding([]string{"*"}, many)
	if a.Q(MaxCodings-1) != 1000 || a.Q(MaxCodings) != 0 {
		t.Errorf("offered beyond MaxCodings: Q %d, %d", a.Q(MaxCodings-1), a.Q(MaxCodings))
	}
}

func TestParseQ(t *testing.T) {
	good := map[string]int{"0": 0, "1": 1000, "0.5": 500, "0.05": 50, "0.005": 5, "1.0": 1000, "1.00": 1000,
		"1.000": 1000, "0.999": 999, "0.": 0, "1.": 1000, "0.000": 0}
	for s, want := range good {
		if got, ok := ParseQ(s); !ok || got != want {
			t.Errorf("ParseQ(%q) = %d, %v; want %d, true", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "2", "1.001", "1.5", "0.1234", "01", "0,5", "-0", "+1", "0.x", ".5", "0 .5",
		"1.0000", "1e-1", " 1", "0.5 "} {
		if q, ok := ParseQ(s); ok {
			t.Errorf("ParseQ(%q) = %d, accepted", s, q)
		}
	}
}

func TestParseAcceptEncodingAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	field := []string{"gzip;q=0.8, deflate, br;q=0.9, X-Gzip, zstd;q=0.7, identity;q=0.1, *;q=0", "br;q=0"}
	allocs := testing.AllocsPerRun(200, func() {
		a := ParseAcceptEncoding(field, testOffered)
		if a.Best(0) != 2 || !a.IdentityForbidden() && a.Q(0) < 0 {
			t.Fatal("wrong pick")
		}
	})
	if allocs != 0 {
		t.Errorf("ParseAcceptEncoding allocates %v times, want 0", allocs)
	}
}

// The model below reads the field the slow, obvious way, for the fuzz test.
var (
	tokenRE  = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
	qvalueRE = regexp.MustCompile(`^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$`)
)

// modelAcceptEncoding returns the weights of offered and whether identity
// is forbidden, by the rules ParseAcceptEncoding documents.
func modelAcceptEncoding(values, offered []string) ([]int, bool) {
	seen := map[string][]int{} // lower-cased coding -> weights in order
	for _, line := range values {
		for _, elem := range strings.Split(line, ",") {
			parts := strings.Split(elem, ";")
			name := strings.Trim(parts[0], " \t")
			if !tokenRE.MatchString(name) {
				continue
			}
			q, nq, bad := 1000, 0, false
			for _, p := range parts[1:] {
				if p = strings.Trim(p, " \t"); p == "" {
					continue
				}
				k, v, ok := strings.Cut(p, "=")
				k, v = strings.Trim(k, " \t"), strings.Trim(v, " \t")
				if !ok || !tokenRE.MatchString(k) {
					bad = true
					break
				}
				if strings.ToLower(k) == "q" {
					nq++
					if !qvalueRE.MatchString(v) {
						bad = true
						break
					}
					f, _ := strconv.ParseFloat(strings.TrimSuffix(v, "."), 64)
					q = int(f*1000 + 0.5)
				}
			}
			if bad || nq > 1 {
				continue
			}
			name = strings.ToLower(name)
			if alias, ok := map[string]string{"x-gzip": "gzip", "x-compress": "compress"}[name]; ok {
				name = alias
			}
			seen[name] = append(seen[name], q)
		}
	}
	weight := func(name string) (int, bool) {
		qs := seen[name]
		if len(qs) == 0 {
			return 0, false
		}
		if slices.Contains(qs, 0) {
			return 0, true
		}
		return qs[0], true
	}
	star, starSet := weight("*")
	var ws []int
	for _, o := range offered {
		w, ok := weight(strings.ToLower(o))
		if !ok {
			w = star
		}
		ws = append(ws, w)
	}
	id, ok := weight("identity")
	if !ok {
		id, ok = star, starSet
	}
	return ws, ok && id == 0
}

func FuzzParseAcceptEncoding(f *testing.F) {
	for _, s := range []string{"gzip", "br;q=0.5, gzip", "*;q=0", "identity;q=0", " ,;=", "gzip;q=1.0000",
		"x-gzip;q=0", "br, br;q=0", "br;q=0.9, BR;q=0.5", "gzip;q=0;q=1", "*, zstd;q=0.001", "identity;q=1, *;q=0"} {
		f.Add(s, "zstd;q=0.5")
	}
	f.Fuzz(func(t *testing.T, line1, line2 string) {
		values := []string{line1, line2}
		a := ParseAcceptEncoding(values, testOffered)
		ws, forbidden := modelAcceptEncoding(values, testOffered)
		best, bestQ := -1, 0
		for i, w := range ws {
			if a.Q(i) != w {
				t.Fatalf("%q: weight of %s %d, model %d", values, testOffered[i], a.Q(i), w)
			}
			if w > bestQ {
				best, bestQ = i, w
			}
		}
		if a.Best(0) != best {
			t.Fatalf("%q: Best %d, model %d", values, a.Best(0), best)
		}
		if a.IdentityForbidden() != forbidden {
			t.Fatalf("%q: identity forbidden %v, model %v", values, a.IdentityForbidden(), forbidden)
		}
	})
}
