package tracing_test

import (
	"net/http"
	"testing"

	"github.com/plinth-go/plinth/observe/tracing"
	"github.com/plinth-go/plinth/racetest"
)

// TestAllocationBudget pins what tracing adds to a request's allocations
// when the request is not recorded. Off (no endpoint) adds nothing: the
// middleware is not in the chain. Sampled out adds three: the request copy
// carrying the span's context (c.SetContext, which also carries the handler
// timeout's deadline), the context value and the SDK's non-recording span
// (the headers are read through c.RawRequest, without a copy); an
// incoming traceparent adds the remote span context's context value and the
// parsed trace state, whether it is continued (a trusted proxy's) or only
// linked (the default for other peers: the link is added to recording spans
// only). Raising a budget is a deliberate decision.
func TestAllocationBudget(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race; `go test ./...` checks them")
	}
	base := allocs(t, modeNone, "")
	for _, tc := range []struct {
		mode, parent string
		extra        float64
	}{
		{modeOff, "", 0},
		{modeOff, traceparent, 0},
		{modeSampledOut, "", 3},
		{modeSampledOut, unsampledParent, 5},
	} {
		got := allocs(t, tc.mode, tc.parent) - base
		if got != tc.extra {
			t.Errorf("%s (traceparent %q): %v allocations over no tracing, want %v", tc.mode, tc.parent, got, tc.extra)
		}
	}
	t.Setenv(tracing.EnvTrustRemote, "all") // continued rather than linked
	if got := allocs(t, modeSampledOut, unsampledParent) - base; got != 5 {
		t.Errorf("sampled-out, trusted traceparent: %v allocations over no tracing, want 5", got)
	}
}

func allocs(t *testing.T, mode, parent string) float64 {
	app := benchApp(t, mode)
	r := request(parent)
	w := &discardWriter{h: http.Header{}}
	return testing.AllocsPerRun(200, func() { app.ServeHTTP(w, r) })
}
