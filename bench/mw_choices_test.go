package bench

// Measurements behind choices in the middleware catalogue that are not a
// middleware's own cost (docs/middleware.md quotes them). Run:
//
//	bench/run-catalogue.sh

import (
	"hash/crc32"
	"hash/crc64"
	"hash/fnv"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/middleware"
)

// BenchmarkETagHash compares the hashes middleware.ETag could tag a 2 KiB
// body with: the pair of hardware CRC-32s it uses (Castagnoli and IEEE, as
// in middleware/etag.go), CRC-64 and FNV-1a 64.
func BenchmarkETagHash(b *testing.B) {
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	ecma := crc64.MakeTable(crc64.ECMA)
	var sink uint64
	for _, h := range []struct {
		name string
		sum  func([]byte) uint64
	}{
		{"crc32-pair", func(p []byte) uint64 {
			return uint64(crc32.Checksum(p, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(p))
		}},
		{"crc64", func(p []byte) uint64 { return crc64.Checksum(p, ecma) }},
		{"fnv1a-64", func(p []byte) uint64 {
			f := fnv.New64a()
			f.Write(p)
			return f.Sum64()
		}},
	} {
		b.Run(h.name, func(b *testing.B) {
			b.SetBytes(int64(len(staticJSON2K)))
			for b.Loop() {
				sink += h.sum(staticJSON2K)
			}
		})
	}
	_ = sink
}

// BenchmarkRateLimitFootprint fills a MemoryRateLimitStore to its default bound
// (middleware.DefaultMemoryRateLimitStoreMaxKeys) through the rate limit middleware, one client
// address per request as the default key makes them, and reports the heap
// it holds per key and in all. Run with -benchtime 1x.
func BenchmarkRateLimitFootprint(b *testing.B) {
	for b.Loop() {
		store := middleware.NewMemoryRateLimitStore(middleware.MemoryRateLimitStoreConfig{})
		rl := middleware.NewRateLimiter(middleware.RateLimiterConfig{
			Limit: middleware.Limit{Rate: 10, Per: time.Second, Burst: 20},
			Store: store,
		})
		app := plinth.Bare()
		app.Use(rl.Middleware())
		app.Get("/", func(c *plinth.Ctx) error { return c.NoContent(204) })
		app.Build()
		req := httptest.NewRequest("GET", "/", nil)
		w := suite.NewResponseWriter(false)
		before := heapInUse()
		for i := range middleware.DefaultMemoryRateLimitStoreMaxKeys {
			a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
			req.RemoteAddr = netip.AddrPortFrom(a, 1234).String()
			w.Reset()
			app.ServeHTTP(w, req)
		}
		held := heapInUse() - before
		if n := store.Len(); n < middleware.DefaultMemoryRateLimitStoreMaxKeys*9/10 {
			b.Fatalf("the store holds %d keys, want about %d", n, middleware.DefaultMemoryRateLimitStoreMaxKeys)
		}
		b.ReportMetric(float64(held)/float64(store.Len()), "heap-B/key")
		b.ReportMetric(float64(held)/1e6, "heap-MB")
		runtime.KeepAlive(store)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
