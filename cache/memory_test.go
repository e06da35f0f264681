package cache_test

import (
	"testing"

	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/cache/cachetest"
)

func TestMemoryConformance(t *testing.T) {
	cachetest.Run(t, cachetest.Config{
		New: func(testing.TB) cache.Store { return cache.NewMemory(cache.MemoryOptions{}) },
	})
}
