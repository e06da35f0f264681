package main

import "testing"

// Every framework instr knows serves the scenarios' requests with the
// expected status and shuts down, with and without requests.
func TestRun(t *testing.T) {
	for _, fw := range []string{"plinth-new", "plinth", "std-limits", "std-defaults", "std", "chi", "gin", "echo"} {
		for _, sc := range []string{"minimal", "json", "middleware"} {
			for _, n := range []int{0, 50} {
				if err := run(fw, sc, n, 2); err != nil {
					t.Errorf("%s %s n=%d: %v", fw, sc, n, err)
				}
			}
		}
	}
	if err := run("fiber", "minimal", 1, 1); err == nil {
		t.Error("fiber accepted: it is not a net/http handler")
	}
}
