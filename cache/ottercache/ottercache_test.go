package ottercache_test

import (
	"testing"

	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/cache/cachetest"
	"github.com/plinth-go/plinth/cache/ottercache"
)

func TestConformance(t *testing.T) {
	cachetest.Run(t, cachetest.Config{
		New: func(t testing.TB) cache.Store {
			s, err := ottercache.New(ottercache.Config{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	})
}
