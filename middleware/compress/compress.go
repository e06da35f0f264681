package compress

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware/compress/internal/httpsyntax"
)

// Defaults. The levels favour speed: a response is compressed on every
// request, so the CPU spent per byte matters more than the last few percent
// of size, which static assets (compressed once, ahead of time) can chase.
// The reasons below come from encoding JSON and HTML bodies of 4 to 64 KiB
// with each library at each level; the measured sizes and times, with the
// command that produces them, are in docs/middleware.md, "Compression".
const (
	// DefaultMinSize is the minimum body size to compress when
	// Config.MinSize is 0, 1 KiB: below it the saving is a few hundred
	// bytes at most, the response fits in one TCP segment either way, and
	// the coding's framing and an encoder's set-up cost are not worth it.
	DefaultMinSize = 1024

	// DefaultBrotliLevel is brotli quality 4, used when Config.Levels has
	// no "br" entry: smaller than gzip level 5 on every test body (quality
	// 1 is not), and a little smaller than quality 3 for more time (lower
	// it to 3 when CPU counts more than bytes). It costs several times
	// gzip 5's time, so servers short of CPU should prefer zstd
	// (Config.Encodings).
	DefaultBrotliLevel = 4

	// DefaultZstdLevel is zstd level 1 (klauspost/compress's "fastest"),
	// used when Config.Levels has no "zstd" entry: no larger than its
	// "default" level (3) on any test body, and quicker than gzip level 5
	// on all of them.
	DefaultZstdLevel = 1

	// DefaultGzipLevel is gzip level 5, klauspost/compress's default, used
	// when Config.Levels has no "gzip" entry: bodies clearly smaller than
	// level 1's for about twice its time, where level 9 takes several
	// times as long for bodies a few percent smaller.
	DefaultGzipLevel = 5
)

// DefaultEncodings returns the default codings in the server's order of
// preference, used when the client accepts several with equal q-values:
// zstd first (at level 1 quicker than gzip 5, with smaller bodies), then br
// (every current browser decodes it; at quality 4 smaller bodies than gzip
// 5's for several times its time), then gzip (every client): the default of
// Config.Encodings. Put Brotli first to trade CPU for bytes. A new slice
// each call.
func DefaultEncodings() []string { return []string{Zstd, Brotli, Gzip} }

// DefaultContentTypes returns the default allowlist of media types to
// compress: text of every kind, JSON and XML (and their +json and +xml
// variants, problem+json included), JavaScript, SVG, WebAssembly, NDJSON,
// and the uncompressed font and icon formats. Images, video, audio, archives
// and woff/woff2 fonts are already compressed and left alone: the default
// of Config.ContentTypes. A new slice each call: append to it and pass it
// as Config.ContentTypes.
func DefaultContentTypes() []string {
	return []string{
		"text/*",
		"application/json",
		"application/*+json",
		"application/x-ndjson",
		"application/javascript",
		"application/x-javascript",
		"application/ecmascript",
		"application/xml",
		"application/*+xml",
		"application/wasm",
		"application/x-font-ttf",
		"application/vnd.ms-fontobject",
		"font/ttf",
		"font/otf",
		"image/svg+xml",
		"image/x-icon",
		"image/vnd.microsoft.icon",
		"image/bmp",
	}
}

// Config configures New. Its zero value is the default: zstd, br and gzip
// in that order of preference, each at its default level, bodies of at least
// DefaultMinSize (1 KiB), the types of DefaultContentTypes.
type Config struct {
	// Encodings lists the codings offered, in the server's order of
	// preference among codings the client accepts equally. Known names are
	// Brotli, Zstd and Gzip; an unknown or repeated name is invalid. Nil
	// or empty means DefaultEncodings(): zstd, br, gzip. List Brotli first
	// to trade CPU for bytes, or leave it out to save CPU.
	Encodings []string

	// Levels sets the compression level of a coding, by its name: gzip 1
	// to 9 (default DefaultGzipLevel, 5), br 0 to 11 (default
	// DefaultBrotliLevel, 4), zstd 1 to 22 (default DefaultZstdLevel, 1;
	// klauspost/compress maps the zstd levels onto its four speeds: 1-2
	// fastest, 3-5 default, 6-9 better, 10-22 best). A coding without an
	// entry gets its default. A level out of range or an unknown coding is
	// invalid, also for a coding that Encodings leaves out.
	Levels map[string]int

	// MinSize is the smallest body, in bytes, that is compressed. 0 means
	// DefaultMinSize (1 KiB); 1 compresses every non-empty body; a
	// negative value is invalid. Up to that many bytes are buffered before
	// the choice is made, unless the handler set Content-Length, which
	// decides at once.
	MinSize int

	// ContentTypes is the allowlist of media types that are compressed.
	// An entry is "type/subtype", "type/*" (any subtype) or
	// "type/*+suffix" (any subtype ending in +suffix), matched
	// case-insensitively against the response's Content-Type without its
	// parameters; a malformed entry is invalid. Nil or empty means
	// DefaultContentTypes(); to add a type, append it to that.
	ContentTypes []string
}

// Validate reports the first problem of c that makes New panic, as an
// error naming the field and the reason, or nil: an unknown or repeated
// coding in Encodings, an unknown coding or a level out of range in Levels,
// a negative MinSize, or a malformed entry in ContentTypes.
func (c Config) Validate() error {
	_, err := build(c)
	return err
}

// middleware is a built configuration, shared by every route it wraps.
type middleware struct {
	coders   []*coder
	names    []string // the coders' names, for negotiate
	minSize  int
	types    []mediaPattern
	vary     *httpsyntax.VaryNames // Accept-Encoding, rendered once
	writers  sync.Pool             // *writer
	copyBufs sync.Pool             // *[]byte of copyBufSize, for ReadFrom
}

// copyBufSize is the chunk ReadFrom reads a body in when compressing.
const copyBufSize = 32 << 10

// New returns the response compression middleware, configured by cfg (the
// zero Config is the default; see its fields).
//
// For each request it picks a coding from Accept-Encoding (br, zstd or
// gzip by default; q-values, "*" and "identity;q=0" honoured; see
// Config.Encodings) and compresses the response when all of these hold:
// the method is not HEAD and the request has no Range header; the status
// is 2xx to 5xx except 204, 206 and 304; the handler set no
// Content-Encoding and no Content-Range, nor Cache-Control: no-transform;
// the Content-Type (sniffed as net/http would when the handler set none)
// is in the allowlist (Config.ContentTypes); and the body reaches the
// minimum size (Config.MinSize), which up to that size is buffered to find
// out. A client that forbids
// identity gets even small bodies compressed. A compressed response loses
// Content-Length and Accept-Ranges, and a strong ETag becomes weak
// (W/"..."), since the bytes differ from the uncompressed representation's.
// Every response of an allowed type gets Vary: Accept-Encoding (merged with
// an existing Vary into one header line), whether or not this one was
// compressed; a response without a Content-Type gets it only when the
// client asked for a coding (its type is sniffed only then). A client that
// forbids identity and accepts no offered coding gets the identity anyway,
// not a 406.
//
// A handler that wrote part of its response and then returns an error gets
// that part sent (it had started the response) and the error logged, as
// without the middleware. After a panic the previous writer is put back
// with nothing written to it if the response was still held, so the
// recovery layer's 500 goes out clean. A response whose request context is
// done (the handler timeout passed, or the client left) is not compressed,
// so that the timeout's own 503 never carries a Content-Encoding.
//
// Errors returned by inner handlers are rendered with Ctx.WriteError
// through the compressor, so problem documents are compressed too; the
// middleware itself returns nil. Flush (http.Flusher or
// http.ResponseController) flushes the encoder and then the connection, so
// streams reach the client as they are written; Hijack works while nothing
// has been compressed. Encoders come from a sync.Pool per coding (and
// level) and are reset for each response.
//
// An invalid cfg (an unknown coding, a level out of range, a negative
// minimum size, a malformed content type) panics here, at startup, with
// the message Config.Validate returns.
//
// Cost: nearly all of a compressed response's time is the encoder's. The
// middleware allocates nothing per request once its pools are warm
// (TestAllocationBudgets: 0 for no Accept-Encoding, a body under the
// minimum size, and gzip, br and zstd responses); after a GC has emptied
// an encoder pool, the next response builds an encoder. Measured figures,
// with the command that produces them: docs/middleware.md, "Compression".
func New(cfg Config) plinth.Middleware {
	m, err := build(cfg)
	if err != nil {
		panic(err.Error())
	}
	return m.wrap
}

// build checks c, applies its defaults and builds the middleware; the
// first error found is returned.
func build(c Config) (*middleware, error) {
	names := c.Encodings
	if len(names) == 0 {
		names = DefaultEncodings()
	}
	if len(names) > maxEncodings {
		return nil, fmt.Errorf("compress: Config.Encodings: %d codings given, at most %d (%s, %s, %s)",
			len(names), maxEncodings, Brotli, Zstd, Gzip)
	}
	minSize := c.MinSize
	switch {
	case minSize < 0:
		return nil, fmt.Errorf("compress: Config.MinSize %d: the minimum size cannot be negative", minSize)
	case minSize == 0:
		minSize = DefaultMinSize
	}
	m := &middleware{minSize: minSize, vary: httpsyntax.NewVaryNames("Accept-Encoding")}
	var err error
	if m.coders, m.names, err = newCoders(names, c.Levels); err != nil {
		return nil, err
	}
	types := c.ContentTypes
	if len(types) == 0 {
		types = DefaultContentTypes()
	}
	if m.types, err = parseMediaPatterns(types); err != nil {
		return nil, err
	}
	m.writers.New = func() any { return &writer{m: m} }
	m.copyBufs.New = func() any { b := make([]byte, copyBufSize); return &b }
	return m, nil
}

// newCoders checks the levels of Config.Levels and builds a coder for each
// of names (the Config.Encodings order), at its level or the default.
func newCoders(names []string, levels map[string]int) ([]*coder, []string, error) {
	for coding, level := range levels {
		if err := checkLevel(coding, level); err != nil {
			return nil, nil, fmt.Errorf("compress: Config.Levels: %w", err)
		}
	}
	var coders []*coder
	for i, name := range names {
		for _, prev := range names[:i] {
			if prev == name {
				return nil, nil, fmt.Errorf("compress: Config.Encodings: %q given twice", name)
			}
		}
		level, ok := levels[name]
		if !ok {
			level = defaultLevel(name)
		}
		if err := checkLevel(name, level); err != nil {
			return nil, nil, fmt.Errorf("compress: Config.Encodings: %w", err)
		}
		cd, err := newCoder(name, level)
		if err != nil {
			return nil, nil, err
		}
		coders = append(coders, cd)
	}
	return coders, append([]string(nil), names...), nil
}

// parseMediaPatterns parses the allowlist entries.
func parseMediaPatterns(types []string) ([]mediaPattern, error) {
	var out []mediaPattern
	for _, t := range types {
		p, err := parseMediaPattern(t)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func defaultLevel(name string) int {
	switch name {
	case Brotli:
		return DefaultBrotliLevel
	case Zstd:
		return DefaultZstdLevel
	}
	return DefaultGzipLevel
}

// wrap is the plinth.Middleware.
func (m *middleware) wrap(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		prev := c.Writer()
		r := c.Request()
		w := m.writers.Get().(*writer)
		w.reset(prev, r)
		c.SetWriter(w)
		defer m.release(c, prev, w)
		if err := next(c); err != nil {
			// A response the handler began but this writer still holds
			// is sent first, so that the error is logged as one after the
			// response started, not appended to the body.
			if w.status != 0 {
				_ = w.commit()
			}
			c.WriteError(err)
		}
		_ = w.finish()
		return nil
	}
}

// release puts the previous writer back and, when the handler returned
// normally, the writer into its pool. After a panic the writer is left to
// the garbage collector: the recovery layer outside then writes its 500
// through the previous writer, which has seen nothing if this one was
// still buffering.
func (m *middleware) release(c *plinth.Ctx, prev http.ResponseWriter, w *writer) {
	c.SetWriter(prev)
	if w.state != stateDone {
		w.abandon()
		return
	}
	w.clear()
	m.writers.Put(w)
}

// mediaPattern is one allowlist entry.
type mediaPattern struct {
	typ    string // "text"
	sub    string // "html", or "" for any subtype
	suffix string // "+json" for "application/*+json"
}

func parseMediaPattern(s string) (mediaPattern, error) {
	typ, sub, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || typ == "" || sub == "" || !httpsyntax.IsToken(typ) || typ == "*" {
		return mediaPattern{}, fmt.Errorf("compress: Config.ContentTypes: %q: want type/subtype, type/* or type/*+suffix", s)
	}
	switch {
	case sub == "*":
		return mediaPattern{typ: typ}, nil
	case strings.HasPrefix(sub, "*+") && len(sub) > 2 && httpsyntax.IsToken(sub[2:]):
		return mediaPattern{typ: typ, suffix: sub[1:]}, nil
	case httpsyntax.IsToken(sub) && !strings.Contains(sub, "*"):
		return mediaPattern{typ: typ, sub: sub}, nil
	}
	return mediaPattern{}, fmt.Errorf("compress: Config.ContentTypes: %q: want type/subtype, type/* or type/*+suffix", s)
}

// allowed reports whether the Content-Type value ct (parameters allowed)
// is in the allowlist. It does not allocate.
func (m *middleware) allowed(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	typ, sub, ok := strings.Cut(httpsyntax.TrimOWS(ct), "/")
	typ, sub = httpsyntax.TrimOWS(typ), httpsyntax.TrimOWS(sub)
	if !ok || typ == "" || sub == "" {
		return false
	}
	for i := range m.types {
		p := &m.types[i]
		if len(typ) != len(p.typ) || !strings.EqualFold(typ, p.typ) {
			continue
		}
		switch {
		case p.sub != "":
			if len(sub) == len(p.sub) && strings.EqualFold(sub, p.sub) {
				return true
			}
		case p.suffix != "":
			if len(sub) > len(p.suffix) && strings.EqualFold(sub[len(sub)-len(p.suffix):], p.suffix) {
				return true
			}
		default:
			return true
		}
	}
	return false
}
