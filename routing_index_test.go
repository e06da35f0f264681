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

// TestRegistrationIsLinear: registering n routes offers each
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

// TestStaticAndSortedLookup: the static-path table and the
// sorted literal children with their jump tables find every route of a
// large generated table and of a node with hundreds of literal children
// (past the jump table's 255), and miss paths that differ from a static
// path by a byte, a length or a segment.
func TestStaticAndSortedLookup(t *testing.T) {
	app := plinth.Bare()
	var static []string
	for i := range 300 {
		// Literal children of one node starting with every kind of byte,
		// in no sorted order, and static paths of equal length.
		p := "/s/" + string(rune('z'-i%26)) + strconv.Itoa(i*7919%1000)
		static = append(static, p)
		app.Get(p, func(c *plinth.Ctx) error { return c.Text(200, "static "+p) })
		app.Get(p+"/{id}", func(c *plinth.Ctx) error { return c.Text(200, "param "+p+" "+c.Param("id")) })
	}
	app.Get("/s/{other}", func(c *plinth.Ctx) error { return c.Text(200, "wild "+c.Param("other")) })
	app.Build()
	for _, p := range static {
		if rec := serve(app, "GET", p); rec.Code != 200 || rec.Body.String() != "static "+p {
			t.Fatalf("GET %s = %d %q", p, rec.Code, rec.Body)
		}
		if rec := serve(app, "GET", p+"/42"); rec.Body.String() != "param "+p+" 42" {
			t.Fatalf("GET %s/42 = %d %q", p, rec.Code, rec.Body)
		}
		// One byte more, or the last byte changed: not the static route.
		if rec := serve(app, "GET", p+"q"); rec.Body.String() != "wild "+p[3:]+"q" {
			t.Fatalf("GET %sq = %d %q", p, rec.Code, rec.Body)
		}
		if rec := serve(app, "GET", p[:len(p)-1]+"!"); rec.Body.String() != "wild "+p[3:len(p)-1]+"!" {
			t.Fatalf("GET %s! = %d %q", p[:len(p)-1], rec.Code, rec.Body)
		}
	}
	if rec := serve(app, "GET", "/s"); rec.Code != 404 {
		t.Errorf("GET /s = %d, want 404", rec.Code)
	}
}
