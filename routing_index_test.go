package plinth_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/plinth-go/plinth"
)

// generatedPatterns returns n patterns in the shape of a large API: each
// resource has its own literal first segment, wildcards and a shared literal
// after them.
func generatedPatterns(n int) []string {
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		r := "/r" + strconv.Itoa(i)
		for _, p := range []string{"GET " + r, "POST " + r, "GET " + r + "/{id}", "PUT " + r + "/{id}",
			"GET " + r + "/{id}/items/{item}", "GET " + r + "/{id}/files/{path...}"} {
			if len(out) < n {
				out = append(out, p)
			}
		}
	}
	return out
}

// TestRegistrationIsLinear (issue 11.1): registering n routes offers each
// new pattern a few candidates, not every route: the GitHub table and 4,000
// and 16,000 generated routes each cost at most 10n comparisons (all pairs
// would be n²/2: 128 million for 16,000), and four times the routes cost
// about four times the comparisons.
func TestRegistrationIsLinear(t *testing.T) {
	ok := plinth.HandlerFunc(func(*plinth.Ctx) error { return nil })
	count := func(patterns []string) int {
		app := plinth.Bare()
		for _, p := range patterns {
			app.Handle(p, ok)
		}
		return plinth.ConflictCandidates(app)
	}
	got := map[string]int{}
	for _, tc := range []struct {
		name     string
		patterns []string
	}{
		{"4000", generatedPatterns(4000)},
		{"16000", generatedPatterns(16000)},
		{"GitHub", loadGitHubPatterns(t)},
	} {
		got[tc.name] = count(tc.patterns)
		if n := len(tc.patterns); got[tc.name] > 10*n {
			t.Errorf("%s: %d comparisons for %d routes, want at most %d", tc.name, got[tc.name], n, 10*n)
		}
	}
	if r := float64(got["16000"]) / float64(got["4000"]); r > 5 {
		t.Errorf("4x the routes cost %.1fx the comparisons (%d, %d), want about 4x", r, got["4000"], got["16000"])
	}
}

func BenchmarkRegister16000(b *testing.B) { benchmarkRegister(b, generatedPatterns(16000)) }

func BenchmarkRegisterGitHub(b *testing.B) { benchmarkRegister(b, loadGitHubPatterns(b)) }

// benchmarkRegister registers pats on a fresh Plinth App and, side by side,
// on a fresh ServeMux.
func benchmarkRegister(b *testing.B, pats []string) {
	h := plinth.HandlerFunc(func(*plinth.Ctx) error { return nil })
	b.Run("plinth", func(b *testing.B) {
		for b.Loop() {
			app := plinth.Bare()
			for _, p := range pats {
				app.Handle(p, h)
			}
		}
	})
	b.Run("servemux", func(b *testing.B) {
		for b.Loop() {
			mux := http.NewServeMux()
			for _, p := range pats {
				mux.Handle(p, h)
			}
		}
	})
}
