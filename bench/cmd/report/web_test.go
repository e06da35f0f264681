package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebSessions renders a small web-sessions file: medians per framework,
// a dash for a store a framework lacks, Plinth's time ratio to each peer.
func TestWebSessions(t *testing.T) {
	dir := t.TempDir()
	body := "command: bench/run-web-sessions.sh 2\ncommit: abc\ncount: 2\ngoos: linux\n" +
		"BenchmarkSession/store=memory/op=read/fw=plinth 1 100 ns/op 3 B/op 1 allocs/op\n" +
		"BenchmarkSession/store=memory/op=read/fw=scs 1 2000 ns/op 9000 B/op 200 allocs/op\n" +
		"BenchmarkSession/store=memory/op=read/fw=plinth 1 120 ns/op 3 B/op 1 allocs/op\n" +
		"BenchmarkSession/store=memory/op=read/fw=scs 1 2000 ns/op 9000 B/op 200 allocs/op\n" +
		"BenchmarkSessionUntouched/fw=plinth-2 1 500 ns/op 0 B/op 0 allocs/op\n" +
		"BenchmarkSessionUntouched/fw=plinth-bare-2 1 500 ns/op 0 B/op 0 allocs/op\n" +
		"BenchmarkCSRF/case=token/fw=plinth 1 4000 ns/op 1700 B/op 18 allocs/op\n" +
		"BenchmarkCSRF/case=token/fw=gorilla 1 8000 ns/op 5000 B/op 55 allocs/op\n"
	if err := os.WriteFile(filepath.Join(dir, "web-sessions-2026-02-01.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := webSessions(&out, dir); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"produced by `bench/run-web-sessions.sh 2` (commit abc,",
		"Median of 2 runs",
		"| store, op | plinth | scs | gorilla | plinth / scs | plinth / gorilla |",
		"| memory, read | 110 · 3 B · 1 | 2,000 · 9,000 B · 200 | – | 0.055 | – |",
		"| untouched | 500 · 0 B · 0 | 500 · 0 B · 0 | – | – | 1.00 | – |",
		"| token | 4,000 · 1,700 B · 18 | – | – | 8,000 · 5,000 B · 55 | – | – | – | – | 0.50 | – |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}
