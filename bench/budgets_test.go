package bench

import (
	"encoding/json"
	"os"
	"testing"
)

// TestAllocBudgets fails when Plinth allocates more per request, in any
// scenario, than bench/budgets.json allows. Counts are exact, so the gate
// cannot flake; it is skipped under -race, which changes escape analysis and
// makes sync.Pool drop items (.ci/run runs it without -race).
func TestAllocBudgets(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race; .ci/run runs this test without it")
	}
	raw, err := os.ReadFile("budgets.json")
	if err != nil {
		t.Fatal(err)
	}
	var budgets map[string]any
	if err := json.Unmarshal(raw, &budgets); err != nil {
		t.Fatalf("budgets.json: %v", err)
	}
	var plinth Framework
	for _, fw := range Frameworks {
		if fw.Name == "plinth" {
			plinth = fw
		}
	}
	for _, name := range ScenarioNames {
		b, ok := budgets[name].(float64)
		if !ok {
			t.Errorf("budgets.json has no budget for scenario %q", name)
			continue
		}
		sc, err := LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := MeasureAllocs(plinth, sc, max(1000/len(sc.Requests), 5))
		if err != nil {
			t.Fatal(err)
		}
		if st.Allocs > b {
			t.Errorf("%s: plinth allocates %.2f per request, budget %v (bench/budgets.json)", name, st.Allocs, b)
		}
	}
}
