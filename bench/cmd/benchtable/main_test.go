package main

import (
	"strings"
	"testing"
)

const sample = `date: 2026-01-02T03:04:05Z
commit: abc123
goos: linux
cpu: Test CPU
BenchmarkMinimal/plinth-2     	 2007855	       100.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkMinimal/std-2        	 1000000	       200.0 ns/op	      16 B/op	       1 allocs/op
BenchmarkMinimal/gin-2        	  896173	       400.0 ns/op	      48 B/op	       1 allocs/op
BenchmarkMinimal/plinth-2     	 2007855	       120.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkMinimal/std-2        	 1000000	       200.0 ns/op	      16 B/op	       1 allocs/op
BenchmarkMinimal/gin-2        	  896173	       400.0 ns/op	      48 B/op	       1 allocs/op
BenchmarkMinimal/plinth-2     	 2007855	       110.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkGithubAll/plinth-2   	    4854	     57959 ns/op	       0 B/op	       0 allocs/op
BenchmarkGithubAll/std-2      	    3280	    113791 ns/op	    9744 B/op	     337 allocs/op
BenchmarkMethodNotAllowed/gin 	  412582	       584.7 ns/op	      80 B/op	       3 allocs/op
PASS
ok  	github.com/plinth-go/plinth/bench	12.990s
`

func TestWrite(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| commit | abc123 |",
		"| cpu | Test CPU |",
		"| scenario | plinth | std | gin | plinth/std | plinth/gin |",
		"| minimal | 100 | 200 | 400 | 0.50 | 0.25 |",      // fastest of 3 and 2 runs
		"| github-all | 57,959 | 113,791 | – | 0.51 | – |", // no gin run
		"| method-not-allowed | – | – | 585 | – | – |",
		"| plinth | 100 | 110 ±9% | 0 | 0 | 1.00 |", // fastest, then median
		"| std | 113,791 | 113,791 ±0% | 9,744 | 337 | 0.51 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := parse(strings.NewReader("PASS\n")); err == nil {
		t.Error("no benchmarks: want an error")
	}
	if _, err := parse(strings.NewReader("BenchmarkFlat-2 10 5 ns/op\n")); err == nil {
		t.Error("benchmark without framework: want an error")
	}
}

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{
		"Minimal": "minimal", "JSON": "json", "Routes50": "routes-50", "GithubAll": "github-all",
		"NotFound": "not-found", "MethodNotAllowed": "method-not-allowed", "HTTPRouter": "http-router",
	} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
}
