package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	base := &Baseline{Commit: "abc", Go: "go1", Arch: "amd64", Valgrind: "valgrind-3.19.0", Threshold: 0.03,
		Results: []Result{{"minimal", "plinth", 10000}, {"json", "plinth", 20000}, {"json", "plinth-new", 30000}}}
	cases := []struct {
		name string
		now  []Result
		pass bool
		want []string
	}{
		{"within", []Result{{"minimal", "plinth", 10300}, {"json", "plinth", 19500}}, true,
			[]string{"instruction gate passed: 2 pairs"}},
		{"grown", []Result{{"minimal", "plinth", 10301}, {"json", "plinth", 20000}}, false,
			[]string{"INSTRUCTION GATE FAILED", "minimal/plinth: 10000 -> 10301 instructions per request, ratio 1.030 (+3.0 %)", updateCommand}},
		{"improved", []Result{{"json", "plinth-new", 27000}}, true,
			[]string{"improved by more than 3 %: json/plinth-new: 30000 -> 27000 (-10.0 %)", updateCommand}},
		{"missing", []Result{{"routes-50", "plinth", 1}}, false,
			[]string{"routes-50/plinth has no baseline"}},
	}
	for _, c := range cases {
		var out strings.Builder
		if got := compare(&out, base, c.now, base.Threshold); got != c.pass {
			t.Errorf("%s: compare = %v, want %v\n%s", c.name, got, c.pass, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, out.String())
			}
		}
	}
}

func TestLower(t *testing.T) {
	got := lower([]Result{{"a", "x", 5}, {"b", "x", 9}}, []Result{{"a", "x", 6}, {"b", "x", 8}})
	if got[0].Instructions != 5 || got[1].Instructions != 8 {
		t.Errorf("lower = %v", got)
	}
}

func TestReadParts(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cg.plinth")
	files := map[string]string{
		out + ".1":         "version: 1\npart: 1\nsummary: 100\n",
		out + ".2":         "part: 2\ndesc: Trigger: --dump-before=main.mark\nsummary: 2500\ntotals: 2500\n",
		out:                "part: 3\nsummary: 7\n",
		out + "-new.2":     "part: 9\nsummary: 1\n", // another framework's file (cg.plinth-new.2)
		out + ".2.unknown": "part: 8\nsummary: 1\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := readParts(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]uint64{1: 100, 2: 2500, 3: 7}
	if len(parts) != len(want) {
		t.Fatalf("parts = %v, want %v", parts, want)
	}
	for k, v := range want {
		if parts[k] != v {
			t.Errorf("part %d = %d, want %d", k, parts[k], v)
		}
	}
}

func TestRoundUp(t *testing.T) {
	for _, c := range [][3]int{{1000, 1, 1000}, {1000, 203, 1015}, {5000, 203, 5075}, {203, 203, 203}} {
		if got := roundUp(c[0], c[1]); got != c[2] {
			t.Errorf("roundUp(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

// TestRatios checks the engine's ratios to fasthttp: computed from one run,
// gated against the baseline's with the same threshold.
func TestRatios(t *testing.T) {
	results := []Result{{"minimal", "plinth-fast", 12000}, {"minimal", "fasthttp", 10000}, {"json", "plinth-fast", 1}}
	got := ratios(results)
	if len(got) != 1 || got[0] != (Ratio{"minimal", "plinth-fast", "fasthttp", 1.2}) {
		t.Fatalf("ratios = %+v", got)
	}
	base := &Baseline{Threshold: 0.03, Results: []Result{{"minimal", "plinth-fast", 12500}, {"minimal", "fasthttp", 10000}},
		Ratios: []Ratio{{"minimal", "plinth-fast", "fasthttp", 1.1}}}
	var out strings.Builder
	// Both counts are within 3 % of the baseline, but the ratio grew by 9 %.
	if compare(&out, base, results[:2], base.Threshold) {
		t.Errorf("a ratio grown by 9 %% passed:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "minimal plinth-fast/fasthttp: 1.100 -> 1.200") {
		t.Errorf("output lacks the ratio:\n%s", out.String())
	}
	base.Ratios[0].Ratio = 1.19
	out.Reset()
	if !compare(&out, base, results[:2], base.Threshold) {
		t.Errorf("a ratio within 3 %% failed:\n%s", out.String())
	}
}

func TestScenariosOf(t *testing.T) {
	all := []string{"minimal", "json", "routes-50"}
	if got := scenariosOf("plinth", all); strings.Join(got, ",") != "minimal,json,routes-50" {
		t.Errorf("scenariosOf(plinth) = %v", got)
	}
	if got := scenariosOf("fasthttp:minimal+json", all); strings.Join(got, ",") != "minimal,json" {
		t.Errorf("scenariosOf(fasthttp:minimal+json) = %v", got)
	}
	if got := frameworkName("fasthttp:minimal+json"); got != "fasthttp" {
		t.Errorf("frameworkName = %q", got)
	}
}
