package cache

import "testing"

// TestCheckKeyEveryByte puts every byte value at every position of a key
// long enough for two words and a tail: CheckKey's word-at-a-time test must
// agree with the byte rule everywhere.
func TestCheckKeyEveryByte(t *testing.T) {
	for pos := 0; pos < 19; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefghijklmnopqrs")
			b[pos] = byte(c)
			bad := c < 0x20 || c == 0x7f
			if got := CheckKey(string(b)) != nil; got != bad {
				t.Fatalf("byte %#x at %d: refused=%v, want %v", c, pos, got, bad)
			}
		}
	}
}

// TestHashChains: entries whose hashes collide share a map slot, chained;
// each is found, and removing any of them keeps the others.
func TestHashChains(t *testing.T) {
	for _, gone := range []int{0, 1, 2} {
		var s shard
		s.m = map[uint64]*entry{}
		s.ring.next, s.ring.prev = &s.ring, &s.ring
		keys := []string{"a", "b", "c"}
		var es []*entry
		for _, k := range keys {
			e := &entry{key: k, hash: 42}
			e.chain = s.m[42]
			s.m[42] = e
			s.n++
			s.pushFront(e)
			es = append(es, e)
		}
		for i, k := range keys {
			if s.find(k, 42) != es[i] {
				t.Fatalf("%s not found in the chain", k)
			}
		}
		s.remove(es[gone])
		for i, k := range keys {
			if got := s.find(k, 42); (got == nil) != (i == gone) {
				t.Fatalf("after removing %s: find(%s) = %v", keys[gone], k, got)
			}
		}
		if s.n != 2 {
			t.Fatalf("n = %d", s.n)
		}
	}
}
