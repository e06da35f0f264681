// Package syncbuf is the log destination of the core module's tests: a
// buffer that a server's logger writes from its goroutines while the test
// reads it. One type for every package of the module, instead of a copy in
// each test package.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer whose methods may be called at the same time
// from several goroutines. The zero value is an empty buffer.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p, as bytes.Buffer.Write does.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Bytes returns a copy of what was written so far.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.b.Bytes())
}
