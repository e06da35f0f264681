package tfb

import (
	"bytes"
	"sync"
)

// fortuneBuffers are the fortunes pages being rendered, reused across
// requests.
var fortuneBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// FortunesPage is the fortunes page: rows sorted with ExtraFortune (see
// SortFortunes) and rendered through html/template into a pooled buffer.
// The caller writes Bytes and then calls Release.
type FortunesPage struct{ buf *bytes.Buffer }

// NewFortunesPage sorts rows (adding ExtraFortune) and renders them.
func NewFortunesPage(rows []Fortune) (FortunesPage, error) {
	rows = SortFortunes(rows)
	buf := fortuneBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	if err := RenderFortunes(buf, rows); err != nil {
		fortuneBuffers.Put(buf)
		return FortunesPage{}, err
	}
	return FortunesPage{buf: buf}, nil
}

// Bytes returns the page; valid until Release.
func (p FortunesPage) Bytes() []byte { return p.buf.Bytes() }

// Release returns the page's buffer to the pool.
func (p FortunesPage) Release() {
	if p.buf != nil && p.buf.Cap() <= 64<<10 {
		fortuneBuffers.Put(p.buf)
	}
}
