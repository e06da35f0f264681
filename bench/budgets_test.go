package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/racetest"
)

// TestAllocBudgets fails when Plinth allocates more per request, in any
// scenario it serves, than bench/budgets.json allows: for plinth (Bare) and
// plinth-new (New, the default layer), under "plinth-engine" for the same
// Apps on Plinth's own engine over loopback (engine_test.go), and, under
// "plinth-web", in each of
// Plinth's web benchmarks (sessions and CSRF, web_*_test.go; the Redis ones
// when PLINTH_TEST_REDIS is set). Counts are exact, so the gate cannot
// flake; it is skipped under -race, which changes escape analysis and makes
// sync.Pool drop items (.ci/run runs it without -race).
func TestAllocBudgets(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race; .ci/run runs this test without it")
	}
	budgets, err := readBudgets("budgets.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"plinth", "plinth-new"} {
		fw, _ := suite.FrameworkNamed(name)
		b, ok := budgets[name]
		if !ok {
			t.Errorf("budgets.json has no budgets for %s", name)
			continue
		}
		for _, scName := range suite.ScenarioNames {
			sc, err := suite.LoadScenario(scName)
			if err != nil {
				t.Fatal(err)
			}
			if !fw.Serves(sc) {
				continue
			}
			limit, ok := b[scName]
			if !ok {
				t.Errorf("budgets.json has no budget for %s on %s: measure it with `go run ./cmd/alloc-count`", name, scName)
				continue
			}
			st, err := suite.MeasureAllocs(fw, sc, max(1000/len(sc.Requests), 5))
			if err != nil {
				t.Fatal(err)
			}
			if st.Allocs > limit {
				t.Errorf("%s on %s: %.2f allocations per request, budget %v (bench/budgets.json)", name, scName, st.Allocs, limit)
			}
		}
	}
	checkWebBudgets(t, budgets[webBudgets])
	checkEngineBudgets(t, budgets[engineBudgets])
}

// webBudgets is budgets.json's section for the web benchmarks: full
// benchmark name without "Benchmark" -> allocations per request.
const webBudgets = "plinth-web"

// checkWebBudgets measures every Plinth setup of the web benchmarks
// (fw=plinth...) against its budget, and checks that an untouched session
// costs nothing: BenchmarkSessionUntouched's fw=plinth allocates exactly
// as fw=plinth-bare.
func checkWebBudgets(t *testing.T, budgets map[string]float64) {
	measured := map[string]float64{}
	for _, f := range webFamilies {
		for _, c := range f.cases() {
			if !strings.Contains(c.Name, "fw=plinth") {
				continue
			}
			name := f.name + "/" + c.Name
			t.Run(webBudgets+"/"+name, func(t *testing.T) {
				limit, ok := budgets[name]
				if !ok {
					t.Fatalf("budgets.json has no %s budget for %s: measure it with `go test -run '^$' -bench '%s$' -benchmem`", webBudgets, name, name)
				}
				s := c.Build(t)
				s.check(t)
				w := suite.NewResponseWriter(false)
				n := testing.AllocsPerRun(500, func() {
					w.Reset()
					s.serve(w)
				})
				measured[name] = n
				if n > limit {
					t.Errorf("%s: %v allocations per request, budget %v (bench/budgets.json, %s)", name, n, limit, webBudgets)
				}
			})
		}
	}
	with, ok1 := measured["SessionUntouched/fw=plinth"]
	without, ok2 := measured["SessionUntouched/fw=plinth-bare"]
	if ok1 && ok2 && with != without {
		t.Errorf("a request that never touches its session allocates %v with Sessions, %v without: want no more", with, without)
	}
}

// readBudgets reads budgets.json: framework -> scenario -> allocations per
// request (for "plinth-web": benchmark -> allocations per request); keys
// starting with "_" are comments.
func readBudgets(file string) (map[string]map[string]float64, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	for k, v := range all {
		if k[0] == '_' {
			continue
		}
		var m map[string]float64
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, err
		}
		for sc := range m {
			if k == engineBudgets { // FRAMEWORK/SCENARIO, checked by checkEngineBudgets
				continue
			}
			if k == webBudgets {
				if !slices.Contains(webBenchNames(), sc) {
					return nil, fmt.Errorf("%s: %s: unknown benchmark %q", file, k, sc)
				}
				continue
			}
			if !slices.Contains(suite.ScenarioNames, sc) {
				return nil, fmt.Errorf("%s: %s: unknown scenario %q", file, k, sc)
			}
		}
		out[k] = m
	}
	return out, nil
}
