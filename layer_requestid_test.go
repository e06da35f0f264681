package plinth

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"
)

// referenceID is the request ID's definition written out plainly: the 128
// bits (48 of milliseconds, the 48-bit prefix, the 32-bit counter) in 26
// Crockford base32 digits, most significant first.
func referenceID(ms uint64, prefix [6]byte, ctr uint32) string {
	var raw [16]byte
	raw[0], raw[1], raw[2], raw[3], raw[4], raw[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	copy(raw[6:12], prefix[:])
	binary.BigEndian.PutUint32(raw[12:], ctr)
	hi, lo := binary.BigEndian.Uint64(raw[:8]), binary.BigEndian.Uint64(raw[8:])
	var b [26]byte
	for i := 25; i >= 0; i-- {
		b[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(b[:])
}

// TestRequestIDEncoding holds the table-driven encoding to the definition,
// over random prefixes, times and counters (the counter's wrap included),
// and checks that IDs cut from a block stay as they were when later IDs
// fill the block and the next one.
func TestRequestIDEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var kept []string
	var want []string
	var src idSource
	for i := range 3000 {
		var g idGenerator
		g.init()
		if i%2 == 0 { // a chosen prefix, else init's random one
			for j := range g.prefix {
				g.prefix[j] = byte(rng.Uint32())
			}
			g.renderPrefix()
		}
		ctr := rng.Uint32()
		switch i % 5 {
		case 1:
			ctr = ^uint32(0) // the next one wraps to 0
		case 2:
			ctr = 1<<30 - 1
		}
		g.counter.Store(ctr)
		now := time.UnixMilli(rng.Int64N(1 << 47))
		if i%7 == 0 {
			now = time.UnixMilli(1<<48 - 1)
		}
		id, v := g.next(&src, now)
		ref := referenceID(uint64(now.UnixMilli()), g.prefix, ctr+1)
		if id != ref {
			t.Fatalf("prefix %x, %d ms, counter %d: ID %s, want %s", g.prefix, now.UnixMilli(), ctr+1, id, ref)
		}
		if len(v) != 1 || v[0] != id || cap(v) != 1 {
			t.Fatalf("header slice %q (cap %d) for ID %s", v, cap(v), id)
		}
		kept = append(kept, id)
		want = append(want, ref)
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("ID %d changed after later IDs were made: %s, was %s", i, kept[i], want[i])
		}
	}
}
