package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Medians, ratios to the base, and the CPU table when the runs carry the
// server's CPU per request (8 fields); 7-field runs give no CPU table.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.tsv")
	lines := "json\tc=64\tplinth\t1\t100\t2\t0\t50\njson\tc=64\tplinth\t2\t300\t4\t0\t40\njson\tc=64\tplinth\t3\t200\t3\t0\t45\n" +
		"json\tc=64\tgo-std\t1\t100\t2\t0\t60\njson\tc=64\tgo-std\t2\t200\t2\t1\t50\njson\tc=64\tgo-std\t3\t150\t2\t0\t55\n"
	if err := os.WriteFile(raw, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "out.md")
	if err := run(raw, "plinth,go-std", "go-std", "T", "", md, ""); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(md)
	out := string(b)
	for _, want := range []string{
		"| json | c=64 | 200 (3.0 ms) | 150 (2.0 ms) ! | 1.33 |", // medians; go-std had an error
		"| json | c=64 | 45.0 | 55.0 | 1.22 |",                   // CPU medians, 55/45
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if err := os.WriteFile(raw, []byte("json\tc=64\tplinth\t1\t100\t2\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(raw, "", "", "T", "", md, ""); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(md); strings.Contains(string(b), "Server CPU") {
		t.Error("a CPU table without CPU figures")
	}
}
