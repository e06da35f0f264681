package storetest_test

import (
	"testing"

	"github.com/plinth-go/plinth/web"
	"github.com/plinth-go/plinth/web/storetest"
)

// TestMemoryStore runs the suite on the memory store, so that the suite
// itself is exercised by the core module's `go test ./...`, with no
// service; redisstore and data/pgstore run it on Redis and PostgreSQL.
func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) web.Store {
		return web.NewMemoryStore(web.MemoryStoreConfig{})
	})
}
