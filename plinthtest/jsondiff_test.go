package plinthtest

import "testing"

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
