package mail

import (
	"context"
	"sync"
	"time"
)

// Memory is the test transport ("memory:"): Send validates the message and
// records a copy of it (with Date and MessageID filled as the MIME form
// has them). Use it with the mailtest package's assertions. Its zero value
// is ready; it is safe for concurrent use.
type Memory struct {
	mu   sync.Mutex
	sent []*Message
	raw  [][]byte
	err  error
}

// String returns the transport's URL, "memory:".
func (mm *Memory) String() string { return "memory:" }

// Send validates m and records it; it returns the error set with Fail,
// recording nothing, when one is set.
func (mm *Memory) Send(ctx context.Context, m *Message) error {
	p, err := m.check()
	if err != nil {
		return err
	}
	c := m.Clone()
	if c.MessageID == "" {
		c.MessageID = NewMessageID(p.from.Address)
	}
	if c.Date.IsZero() {
		c.Date = time.Now()
	}
	raw, err := c.Bytes()
	if err != nil {
		return err
	}
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if mm.err != nil {
		return mm.err
	}
	mm.sent = append(mm.sent, c)
	mm.raw = append(mm.raw, raw)
	return nil
}

// Fail makes every Send return err (nil sends again): a test of a
// failing transport.
func (mm *Memory) Fail(err error) {
	mm.mu.Lock()
	mm.err = err
	mm.mu.Unlock()
}

// Sent returns the messages sent so far, oldest first (copies).
func (mm *Memory) Sent() []*Message {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	out := make([]*Message, len(mm.sent))
	for i, m := range mm.sent {
		out[i] = m.Clone()
	}
	return out
}

// Raw returns the MIME form of each message sent so far, oldest first.
func (mm *Memory) Raw() [][]byte {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	out := make([][]byte, len(mm.raw))
	for i, b := range mm.raw {
		out[i] = append([]byte(nil), b...)
	}
	return out
}

// Reset forgets the messages sent so far.
func (mm *Memory) Reset() {
	mm.mu.Lock()
	mm.sent, mm.raw = nil, nil
	mm.mu.Unlock()
}
