package main

import "testing"

// Every framework instr knows serves the scenarios' requests with the
// expected status and shuts down, with and without requests.
func TestRun(t *testing.T) {
	t.Chdir("../..") // bench/, where the GitHub route table is found
	for _, fw := range []string{"plinth-new", "plinth", "std-limits", "std-defaults", "std", "chi", "gin", "echo"} {
		for _, sc := range []string{"minimal", "json", "middleware", "github-all"} {
			for _, n := range []int{0, 50} {
				if err := run(fw, sc, n, 2); err != nil {
					t.Errorf("%s %s n=%d: %v", fw, sc, n, err)
				}
			}
		}
	}
	for _, fw := range []string{"plinth", "plinth-new", "huma", "gin", "echo"} {
		if err := run(fw, "validated-json", 20, 2); err != nil {
			t.Errorf("%s validated-json: %v", fw, err)
		}
	}
	for _, sc := range []string{"headers-0", "headers-4", "headers-10"} {
		if err := run("std", sc, 20, 2); err != nil {
			t.Errorf("std %s: %v", sc, err)
		}
	}
	for _, bad := range [][2]string{{"fiber", "minimal"}, {"plinth", "headers-4"}, {"std", "headers-11"}, {"std", "validated-json"}} {
		if err := run(bad[0], bad[1], 1, 1); err == nil {
			t.Errorf("%s on %s accepted", bad[0], bad[1])
		}
	}
}
