package redisstore_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/plinth-go/plinth/web/storetest"
)

// benchData is the size of a typical encoded session: a user ID, a CSRF
// secret, a flash message and a locale.
var benchData = bytes.Repeat([]byte{'s'}, 256)

// BenchmarkLoad measures one Load of a 256-byte session: one GET, a round
// trip to the Redis at PLINTH_TEST_REDIS.
func BenchmarkLoad(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := b.Context()
	id := storetest.NewID()
	if err := s.Create(ctx, id, benchData, time.Now().Add(time.Hour)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if data, err := s.Load(ctx, id); err != nil || len(data) != len(benchData) {
			b.Fatalf("Load = %d bytes, %v", len(data), err)
		}
	}
}

// BenchmarkSave measures one save of an existing 256-byte session (an
// Update): one SET with PX and XX, a round trip to the Redis at
// PLINTH_TEST_REDIS.
func BenchmarkSave(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := b.Context()
	id := storetest.NewID()
	expiry := time.Now().Add(time.Hour)
	if err := s.Create(ctx, id, benchData, expiry); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := s.Update(ctx, id, benchData, expiry); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
