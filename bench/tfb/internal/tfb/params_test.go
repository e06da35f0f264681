package tfb

import "testing"

func TestQueryCount(t *testing.T) {
	for in, want := range map[string]int{
		"": 1, "foo": 1, "0": 1, "-3": 1, "1": 1, "2": 2, "20": 20, "500": 500, "501": 500,
		"99999999999999999999": 500, "1.5": 1, " 2": 1, "+": 1, "2x": 1,
	} {
		if got := QueryCount(in); got != want {
			t.Errorf("QueryCount(%q) = %d, want %d", in, got, want)
		}
	}
}
