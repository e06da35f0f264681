package plinth

import (
	"testing"
	"time"
)

// TestWhenAfter holds the comparison of deadlines by their starts (same
// duration) to the comparison of the times themselves.
func TestWhenAfter(t *testing.T) {
	base := time.Now()
	starts := []time.Time{base, base.Add(time.Nanosecond), base.Add(-time.Millisecond), base.Add(time.Hour),
		base.Round(0), base.Round(0).Add(time.Second)} // Round(0): no monotonic reading
	durs := []time.Duration{0, time.Nanosecond, time.Second, 30 * time.Second, time.Hour}
	for _, s1 := range starts {
		for _, s2 := range starts {
			for _, d1 := range durs {
				for _, d2 := range durs {
					a, b := when{s1, d1}, when{s2, d2}
					if got, want := a.after(b), s1.Add(d1).After(s2.Add(d2)); got != want {
						t.Errorf("when{%v, %v}.after(when{%v, %v}) = %v, want %v", s1, d1, s2, d2, got, want)
					}
				}
			}
		}
	}
}
