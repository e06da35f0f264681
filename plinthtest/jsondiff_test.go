package plinthtest

import (
	"strings"
	"testing"
)

// TestJSONDiffOrder: of several differences, the first in key order is
// named, at every run (maps iterate in random order).
func TestJSONDiffOrder(t *testing.T) {
	got := map[string]any{"a": 1.0, "b": 2.0, "c": 3.0, "x": 4.0, "y": 5.0}
	want := map[string]any{"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}
	for range 50 {
		if p, d := jsonDiff("body", got, want); p != "body.a" || d != "got 1, want 0" {
			t.Fatalf("jsonDiff = %q, %q; want body.a, got 1, want 0", p, d)
		}
	}
	delete(got, "x")
	want = map[string]any{"a": 1.0, "b": 2.0, "c": 3.0}
	for range 50 {
		if p, _ := jsonDiff("body", got, want); p != "body.y" {
			t.Fatalf("jsonDiff names %q, want body.y (the only unexpected member)", p)
		}
	}
	got = map[string]any{"b": 2.0, "c": 3.0, "x": 4.0, "y": 5.0}
	want = map[string]any{"b": 2.0, "c": 3.0}
	for range 50 {
		if p, _ := jsonDiff("body", got, want); p != "body.x" {
			t.Fatalf("jsonDiff names %q, want body.x (the first unexpected member)", p)
		}
	}
}

// TestShort: a value is shown whole up to 80 bytes of JSON, cut with an
// ellipsis past that.
func TestShort(t *testing.T) {
	exact := strings.Repeat("x", 78) // 80 bytes with its quotes
	if got := short(exact); got != `"`+exact+`"` {
		t.Errorf("80 bytes: %q, want them whole", got)
	}
	longer := exact + "y"
	if got := short(longer); got != (`"` + longer)[:80]+"…" {
		t.Errorf("81 bytes: %q, want 80 and an ellipsis", got)
	}
}
