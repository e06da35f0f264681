package plinth

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/plinth-go/plinth/racetest"
)

// TestRequestIDAllocations counts what generated request IDs cost exactly:
// one allocation (an idBlock) per idsPerBlock requests, whatever the
// handler, on a Ctx that stays in its pool (GOMAXPROCS 1, no collection in
// between).
func TestRequestIDAllocations(t *testing.T) {
	if racetest.Enabled { // the race detector is on
		t.Skip("allocation counts are meaningless under -race")
	}
	app := New()
	app.Get("/", func(c *Ctx) error { return c.NoContent(204) })
	app.Build()
	req := httptest.NewRequest("GET", "/", nil)
	w := &headerOnlyWriter{h: http.Header{}}
	serve := func() {
		clear(w.h)
		app.ServeHTTP(w, req)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 2 * idsPerBlock {
		serve()
	}
	const n = 100 * idsPerBlock
	var before, after runtime.MemStats
	runtime.GC()
	serve() // the Ctx pool's victim cache after the collection
	runtime.ReadMemStats(&before)
	for range n {
		serve()
	}
	runtime.ReadMemStats(&after)
	if got := after.Mallocs - before.Mallocs; got > n/idsPerBlock+1 {
		t.Errorf("%d requests made %d allocations, want at most %d (one block per %d IDs)", n, got, n/idsPerBlock+1, idsPerBlock)
	}
}

type headerOnlyWriter struct{ h http.Header }

func (w *headerOnlyWriter) Header() http.Header         { return w.h }
func (w *headerOnlyWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *headerOnlyWriter) WriteHeader(int)             {}
