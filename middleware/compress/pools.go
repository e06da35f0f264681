package compress

import (
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// encoder is what the three libraries' stream writers have in common.
type encoder interface {
	io.Writer
	Flush() error
	Close() error
	Reset(w io.Writer)
}

// zstdWindow is the zstd window (the back-reference distance): 1 MiB, well
// under the 8 MiB that RFC 9659 lets an HTTP client insist on, and the size
// that keeps a pooled encoder's memory modest. HTTP responses that gain from
// a larger window are rare.
const zstdWindow = 1 << 20

// coder is one configured coding: its name, its pre-rendered
// Content-Encoding value and a pool of encoders at its level.
type coder struct {
	name   string
	header []string // Content-Encoding value, shared by every response
	level  int
	pool   sync.Pool
}

// checkLevel reports a level out of the coding's range, or an unknown
// coding.
func checkLevel(name string, level int) error {
	lo, hi := 0, 0
	switch name {
	case Gzip:
		lo, hi = gzip.BestSpeed, gzip.BestCompression
	case Brotli:
		lo, hi = brotli.BestSpeed, brotli.BestCompression
	case Zstd:
		lo, hi = 1, 22
	default:
		return fmt.Errorf("unknown coding %q (known: %s, %s, %s)", name, Brotli, Zstd, Gzip)
	}
	if level < lo || level > hi {
		return fmt.Errorf("%s level %d out of range [%d, %d]", name, level, lo, hi)
	}
	return nil
}

func newCoder(name string, level int) (*coder, error) {
	if err := checkLevel(name, level); err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	cd := &coder{name: name, header: []string{name}, level: level}
	switch name {
	case Gzip:
		cd.pool.New = func() any {
			w, _ := gzip.NewWriterLevel(io.Discard, level) // the level was checked
			return encoder(w)
		}
	case Brotli:
		cd.pool.New = func() any { return encoder(brotli.NewWriterLevel(io.Discard, level)) }
	case Zstd:
		opts := []zstd.EOption{
			zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
			zstd.WithEncoderConcurrency(1), // encode in the handler's goroutine
			zstd.WithWindowSize(zstdWindow),
			zstd.WithEncoderCRC(false), // TCP and TLS already check; browsers ignore it
		}
		if _, err := zstd.NewWriter(nil, opts...); err != nil {
			return nil, fmt.Errorf("compress: zstd: %v", err)
		}
		cd.pool.New = func() any {
			w, _ := zstd.NewWriter(nil, opts...) // the options were checked
			return encoder(w)
		}
	}
	return cd, nil
}

// get returns a pooled encoder writing to w.
func (cd *coder) get(w io.Writer) encoder {
	e := cd.pool.Get().(encoder)
	e.Reset(w)
	return e
}

// put returns a closed encoder to the pool, pointing it away from the
// response writer so that the pool keeps no response alive.
func (cd *coder) put(e encoder) {
	e.Reset(io.Discard)
	cd.pool.Put(e)
}
