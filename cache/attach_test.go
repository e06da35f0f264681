package cache_test

import (
	"context"
	"errors"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
)

// failing is a Store whose backend does not answer.
type failing struct{ cache.Store }

func (failing) Ping(context.Context) error { return errors.New("connection refused") }

// TestAttach: the "cache" check is a degraded one: ok on MemoryStore; degraded,
// not down, when the store's Ping fails, and Ready still passes.
func TestAttach(t *testing.T) {
	for _, tc := range []struct {
		store cache.Store
		want  plinth.CheckStatus
	}{
		{cache.NewMemoryStore(cache.MemoryStoreConfig{}), plinth.CheckOK},
		{failing{cache.NewMemoryStore(cache.MemoryStoreConfig{})}, plinth.CheckDegraded},
	} {
		app := plinth.New()
		cache.Attach(app, tc.store)
		results, err := app.Readiness(t.Context())
		if err != nil || len(results) != 1 || results[0].Name != "cache" || results[0].Status != tc.want {
			t.Errorf("%T: Readiness = %+v, %v; want cache %s", tc.store, results, err, tc.want)
		}
		if err := app.Ready(t.Context()); err != nil {
			t.Errorf("%T: Ready = %v; a degraded cache must not fail readiness", tc.store, err)
		}
		tc.store.Close()
	}
}
