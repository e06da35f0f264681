package ottercache_test

import (
	"testing"

	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/cache/cachetest"
	ottercache "github.com/plinth-go/plinth/cache/ottercache"
)

func TestConformance(t *testing.T) {
	cachetest.Run(t, cachetest.Config{
		New: func(t testing.TB) cache.Store {
			s, err := ottercache.New(ottercache.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	})
}
