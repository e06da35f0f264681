package httpsyntax

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plinth-go/plinth/racetest"
)

func TestAddVary(t *testing.T) {
	cases := []struct {
		name   string
		before []string // Vary lines; nil for none
		add    []string
		want   []string
	}{
		{"absent", nil, []string{"Origin"}, []string{"Origin"}},
		{"absent, several", nil, []string{"Origin", "Accept-Encoding", "origin"}, []string{"Origin, Accept-Encoding"}},
		{"present", []string{"Origin"}, []string{"origin"}, []string{"Origin"}},
		{"present in a list", []string{"Cookie,\tORIGIN , Accept"}, []string{"Origin"}, []string{"Cookie,\tORIGIN , Accept"}},
		{"appended", []string{"Origin"}, []string{"Accept-Encoding"}, []string{"Origin, Accept-Encoding"}},
		{"appended, some present", []string{"Origin, Cookie"}, []string{"cookie", "Accept-Encoding", "Origin"}, []string{"Origin, Cookie, Accept-Encoding"}},
		{"not a substring match", []string{"X-Origin-Y"}, []string{"Origin"}, []string{"X-Origin-Y, Origin"}},
		{"lines folded", []string{"Origin", "Cookie"}, []string{"Accept-Encoding"}, []string{"Origin, Cookie, Accept-Encoding"}},
		{"lines folded, name present", []string{"Origin", " Accept-Encoding"}, []string{"Accept-Encoding"}, []string{"Origin, Accept-Encoding"}},
		{"lines folded, duplicates dropped", []string{"Origin, origin", "ORIGIN", ""}, []string{"Cookie"}, []string{"Origin, Cookie"}},
		{"empty members dropped", []string{" , Origin,, "}, []string{"Cookie"}, []string{"Origin, Cookie"}},
		{"empty line", []string{""}, []string{"Origin"}, []string{"Origin"}},
		{"star", []string{"*"}, []string{"Origin"}, []string{"*"}},
		{"star, spaced, kept as is", []string{" * "}, []string{"Origin"}, []string{" * "}},
		{"star in a list", []string{"Origin, *"}, []string{"Cookie"}, []string{"*"}},
		{"star in a list, name present", []string{"Origin, *"}, []string{"Origin"}, []string{"*"}},
		{"star in another line", []string{"Origin", "*"}, []string{"Cookie"}, []string{"*"}},
		{"star added", []string{"Origin, Cookie"}, []string{"*"}, []string{"*"}},
		{"star added to none", nil, []string{"Origin", "*"}, []string{"*"}},
		{"empty name ignored", []string{"Origin"}, []string{"", " "}, []string{"Origin"}},
		{"empty names only", nil, []string{""}, nil},
		{"no names", []string{"Origin", "Cookie"}, nil, []string{"Origin", "Cookie"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.before != nil {
				h["Vary"] = slices.Clone(tc.before)
			}
			AddVary(h, tc.add...)
			if got := h["Vary"]; !slices.Equal(got, tc.want) {
				t.Errorf("AddVary(%q, %q): Vary %q, want %q", tc.before, tc.add, got, tc.want)
			}
			// Adding again changes nothing.
			AddVary(h, tc.add...)
			if got := h["Vary"]; len(tc.add) > 0 && len(tc.want) == 1 && !slices.Equal(got, tc.want) {
				t.Errorf("second AddVary: Vary %q, want %q", got, tc.want)
			}

			// VaryNames gives the same answer, for valid name lists.
			var names []string
			for _, n := range tc.add {
				if IsToken(strings.TrimSpace(n)) {
					names = append(names, n)
				}
			}
			if len(names) == 0 || len(names) != len(tc.add) {
				return
			}
			v := NewVaryNames(names...)
			for range 3 { // the second and third use the remembered merge
				h := http.Header{}
				if tc.before != nil {
					h["Vary"] = slices.Clone(tc.before)
				}
				v.Add(h)
				if got := h["Vary"]; !slices.Equal(got, tc.want) {
					t.Errorf("VaryNames(%q).Add(%q): Vary %q, want %q", names, tc.before, got, tc.want)
				}
			}
		})
	}
}

func TestNewVaryNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"Origin"}, "Origin"},
		{[]string{" Origin ", "Access-Control-Request-Method", "ORIGIN"}, "Origin, Access-Control-Request-Method"},
		{[]string{"Origin", "*"}, "*"},
	} {
		if got := NewVaryNames(tc.names...).String(); got != tc.want {
			t.Errorf("NewVaryNames(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
	for _, bad := range [][]string{nil, {""}, {"Origin, Cookie"}, {"Orig in"}, {"Origin", "a:b"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewVaryNames(%q) did not panic", bad)
				}
			}()
			NewVaryNames(bad...)
		}()
	}
}

// TestVarySharedValuesUnchanged: the rendered and remembered lines are
// shared by every response, so nothing that happens to one response's
// header may write into them.
func TestVarySharedValuesUnchanged(t *testing.T) {
	v := NewVaryNames("Accept-Encoding")
	h := http.Header{}
	v.Add(h)
	h.Add("Vary", "Cookie")
	AddVary(h, "Origin")
	if v.line[0] != "Accept-Encoding" || len(v.line) != 1 || cap(v.line) != 1 {
		t.Fatalf("shared Vary value changed: %q", v.line)
	}
	h = http.Header{"Vary": {"Origin"}}
	v.Add(h)
	remembered := h["Vary"]
	h.Add("Vary", "Cookie")
	AddVary(h, "X")
	h2 := http.Header{"Vary": {"Origin"}}
	v.Add(h2)
	if !slices.Equal(remembered, []string{"Origin, Accept-Encoding"}) || !slices.Equal(h2["Vary"], remembered) {
		t.Fatalf("remembered merge changed: %q, then %q", remembered, h2["Vary"])
	}
	if cap(remembered) != len(remembered) {
		t.Fatalf("remembered merge has spare capacity %d", cap(remembered))
	}
}

// TestVaryCacheBounded: more distinct existing lines than the cache holds
// still merge correctly, concurrently, and the cache keeps its first
// entries.
func TestVaryCacheBounded(t *testing.T) {
	v := NewVaryNames("Origin")
	long := strings.Repeat("X", maxCachedLine+1)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				prev := fmt.Sprintf("Cookie-%d", (g+i)%(2*varyCacheSlots))
				if i%7 == 0 {
					prev = long
				}
				h := http.Header{"Vary": {prev}}
				v.Add(h)
				if want := prev + ", Origin"; !slices.Equal(h["Vary"], []string{want}) {
					t.Errorf("Vary %q, want [%q]", h["Vary"], want)
					return
				}
			}
		})
	}
	wg.Wait()
	n := 0
	for i := range v.cache {
		if e := v.cache[i].Load(); e != nil {
			n++
			if e.prev == long {
				t.Errorf("a line longer than %d bytes was remembered", maxCachedLine)
			}
		}
	}
	if n != varyCacheSlots {
		t.Errorf("%d remembered merges, want %d", n, varyCacheSlots)
	}
}

func TestVaryAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	v := NewVaryNames("Origin")
	two := NewVaryNames("Origin", "Accept-Encoding")
	existing := []string{"Accept-Encoding, Origin"}
	prev := []string{"Cookie"}
	lines := []string{"Cookie", "Accept"}
	full := NewVaryNames("Origin")
	for i := range varyCacheSlots {
		full.Add(http.Header{"Vary": {fmt.Sprint("X-", i)}})
	}
	h := http.Header{}
	cases := []struct {
		name   string
		before []string
		add    func()
		budget float64
	}{
		{"VaryNames absent", nil, func() { v.Add(h) }, 0},
		{"VaryNames present", existing, func() { v.Add(h) }, 0},
		{"VaryNames two present", existing, func() { two.Add(h) }, 0},
		{"VaryNames star", []string{"*"}, func() { v.Add(h) }, 0},
		{"VaryNames remembered merge", prev, func() { v.Add(h) }, 0},
		{"AddVary present", existing, func() { AddVary(h, "origin") }, 0},
		{"AddVary two present", existing, func() { AddVary(h, "origin", "accept-encoding") }, 0},
		{"AddVary star", []string{"Origin, *"}, func() { AddVary(h, "Cookie") }, 0},
		{"AddVary merge", prev, func() { AddVary(h, "Origin") }, 2},
		{"VaryNames fold", lines, func() { v.Add(h) }, 2},
		{"VaryNames merge, cache full", prev, func() { full.Add(h) }, 2},
	}
	for _, tc := range cases {
		got := testing.AllocsPerRun(200, func() {
			clear(h)
			if tc.before != nil {
				h["Vary"] = tc.before
			}
			tc.add()
		})
		if got != tc.budget {
			t.Errorf("%s: %v allocations, want %v", tc.name, got, tc.budget)
		}
	}
	if !slices.Equal(existing, []string{"Accept-Encoding, Origin"}) || !slices.Equal(prev, []string{"Cookie"}) ||
		!slices.Equal(lines, []string{"Cookie", "Accept"}) {
		t.Fatalf("an input was written into: %q %q %q", existing, prev, lines)
	}
}

func TestListHas(t *testing.T) {
	for _, tc := range []struct {
		list, name string
		want       bool
	}{
		{"Origin", "origin", true},
		{" a ,\tb", "b", true},
		{"a, b", "a, b", false},
		{"no-transformer", "no-transform", false},
		{"public, no-transform", "no-transform", true},
		{"NO-TRANSFORM", "no-transform", true},
		{"no-transform=x", "no-transform", false},
		{"", "x", false},
		{"x,,", "", true},
	} {
		if got := ListHas(tc.list, tc.name); got != tc.want {
			t.Errorf("ListHas(%q, %q) = %v, want %v", tc.list, tc.name, got, tc.want)
		}
	}
}

func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{
		"Origin": true, "X-Request-Id": true, "*": true, "!#$%&'*+-.^_`|~09az": true,
		"": false, "a b": false, "a,b": false, "a:b": false, "é": false, "a\"": false,
	} {
		if got := IsToken(s); got != want {
			t.Errorf("IsToken(%q) = %v, want %v", s, got, want)
		}
	}
}

// members splits Vary lines into their trimmed, non-empty members.
func members(lines []string) []string {
	var out []string
	for _, l := range lines {
		for m := range strings.SplitSeq(l, ",") {
			if m = strings.Trim(m, " \t"); m != "" {
				out = append(out, m)
			}
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(e string) bool { return strings.EqualFold(e, s) })
}

// FuzzAddVary checks AddVary and VaryNames.Add against a plain model: the
// result is one line (or the unchanged single line) holding every existing
// member and every name once, existing ones first; or "*".
func FuzzAddVary(f *testing.F) {
	f.Add("Origin\nCookie", "Accept-Encoding")
	f.Add("", "Origin")
	f.Add("origin, ORIGIN", "Origin")
	f.Add("*", "Origin")
	f.Add("a,,b\n\n c ", "B\nd")
	f.Add("Accept-Encoding", "*")
	f.Fuzz(func(t *testing.T, before, add string) {
		var lines []string
		if before != "" {
			lines = strings.Split(before, "\n")
		}
		var names []string
		for n := range strings.SplitSeq(add, "\n") {
			if n = strings.TrimSpace(n); IsToken(n) {
				names = append(names, n)
			}
		}
		h := http.Header{}
		if lines != nil {
			h["Vary"] = slices.Clone(lines)
		}
		AddVary(h, names...)
		got := h["Vary"]
		check(t, lines, names, got)

		if len(names) == 0 {
			return
		}
		v := NewVaryNames(names...)
		for range 2 {
			h := http.Header{}
			if lines != nil {
				h["Vary"] = slices.Clone(lines)
			}
			v.Add(h)
			if !slices.Equal(h["Vary"], got) {
				t.Fatalf("VaryNames.Add(%q, %q) = %q, AddVary %q", lines, names, h["Vary"], got)
			}
		}
	})
}

func check(t *testing.T, lines, names, got []string) {
	t.Helper()
	if len(names) == 0 {
		if !slices.Equal(got, lines) {
			t.Fatalf("no names: Vary %q became %q", lines, got)
		}
		return
	}
	before := members(lines)
	all := append(slices.Clone(before), names...)
	if slices.Contains(all, "*") {
		if len(got) != 1 || strings.Trim(got[0], " \t") != "*" {
			t.Fatalf("AddVary(%q, %q) = %q, want *", lines, names, got)
		}
		return
	}
	if len(got) != 1 {
		t.Fatalf("AddVary(%q, %q) = %d lines %q, want one", lines, names, len(got), got)
	}
	if len(lines) == 1 && !slices.ContainsFunc(names, func(n string) bool { return !containsFold(before, n) }) {
		if got[0] != lines[0] {
			t.Fatalf("AddVary(%q, %q) = %q, want the line unchanged", lines, names, got)
		}
		return
	}
	res := members(got)
	var want []string
	for _, m := range all {
		if !containsFold(want, m) {
			want = append(want, m)
		}
	}
	if !slices.Equal(res, want) {
		t.Fatalf("AddVary(%q, %q) = %q, want members %q", lines, names, got, want)
	}
}
