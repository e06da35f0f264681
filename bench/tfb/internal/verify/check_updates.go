package verify

import (
	"context"
	"fmt"
)

// updateRows is the number of rows the persistence check asks for.
const updateRows = 500

// checkUpdatesPersist reads the world table, requests
// /updates?queries=500, reads the table again, and requires that the rows
// returned actually changed (0 or 90% or fewer fails, 95% or fewer warns,
// as TFB) and that every returned randomNumber is the one now stored. When
// an id is returned more than once, any of its returned values may be the
// stored one.
func (v *verifier) checkUpdatesPersist(ctx context.Context, f *findings, t *testType) {
	path := fmt.Sprintf("%s?%s=%d", t.path, t.param, updateRows)
	url := v.cfg.BaseURL + path
	before, err := v.db.worldTable(ctx)
	if err != nil {
		f.fail("persist", url, "reading the world table: %v", err)
		return
	}
	r := v.fetch(ctx, f, t, path)
	if r == nil {
		return
	}
	objs, _, err := parseWorlds(r.body)
	if err != nil {
		f.fail("persist", url, "%v", err)
		return
	}
	if len(objs) != updateRows {
		f.fail("persist", url, "expected %d objects, got %d", updateRows, len(objs))
		return
	}
	after, err := v.db.worldTable(ctx)
	if err != nil {
		f.fail("persist", url, "reading the world table: %v", err)
		return
	}

	returned := map[int][]int{}
	for _, o := range objs {
		returned[o.ID] = append(returned[o.ID], o.RandomNumber)
	}
	changed, mismatched := 0, 0
	example := ""
	for id, values := range returned {
		if before[id] != after[id] {
			changed++
		}
		if !contains(values, after[id]) {
			mismatched++
			if example == "" {
				example = fmt.Sprintf("id %d: returned randomNumber %v, table holds %d", id, values, after[id])
			}
		}
	}
	pct := 100 * float64(changed) / float64(len(returned))
	switch {
	case changed == 0:
		f.fail("changed", url, "none of the %d distinct returned rows changed in the world table", len(returned))
	case pct <= 90:
		f.fail("changed", url, "%d of %d distinct returned rows changed (%.1f%%): more than 90%% must", changed, len(returned), pct)
	case pct <= 95:
		f.warn("changed", url, "%d of %d distinct returned rows changed (%.1f%%): more than 95%% should", changed, len(returned), pct)
	default:
		f.pass("changed", url, "%d of %d distinct returned rows changed (%.1f%%)", changed, len(returned), pct)
	}
	if mismatched > 0 {
		f.fail("persist", url, "%d of %d returned rows do not hold the returned randomNumber after the request, e.g. %s", mismatched, len(returned), example)
	} else {
		f.pass("persist", url, "every returned randomNumber is stored in the world table")
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
