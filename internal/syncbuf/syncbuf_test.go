package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWritesAndReads: writers and a reader at once lose no byte
// (and, under -race, report no race).
func TestConcurrentWritesAndReads(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := strings.Count(b.String(), "x\n"); got != 400 || len(b.Bytes()) != 800 {
		t.Errorf("%d lines, %d bytes; want 400 and 800", got, len(b.Bytes()))
	}
	c := b.Bytes()
	c[0] = 'y'
	if b.String()[0] != 'x' {
		t.Error("Bytes returned the buffer itself, not a copy")
	}
}
