package tfb

import (
	"slices"
	"testing"
)

func TestUniqueSortedLastValueWins(t *testing.T) {
	ws := []World{{7, 1}, {3, 2}, {7, 3}, {5, 4}, {3, 5}, {7, 6}}
	ids, nums := uniqueSorted(ws)
	if want := []int32{3, 5, 7}; !slices.Equal(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	if want := []int32{5, 4, 6}; !slices.Equal(nums, want) {
		t.Fatalf("nums = %v, want %v", nums, want)
	}
	want := []World{{7, 6}, {3, 5}, {7, 6}, {5, 4}, {3, 5}, {7, 6}}
	if !slices.Equal(ws, want) {
		t.Fatalf("ws = %v, want %v (every entry reports the stored value)", ws, want)
	}
}
