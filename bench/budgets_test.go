package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// TestAllocBudgets fails when Plinth allocates more per request, in any
// scenario it serves, than bench/budgets.json allows: for plinth (Bare) and
// plinth-new (New, the default layer). Counts are exact, so the gate cannot
// flake; it is skipped under -race, which changes escape analysis and makes
// sync.Pool drop items (.ci/run runs it without -race).
func TestAllocBudgets(t *testing.T) {
	if raceEnabled {
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
}

// readBudgets reads budgets.json: framework -> scenario -> allocations per
// request; keys starting with "_" are comments.
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
			if !slices.Contains(suite.ScenarioNames, sc) {
				return nil, fmt.Errorf("%s: %s: unknown scenario %q", file, k, sc)
			}
		}
		out[k] = m
	}
	return out, nil
}
