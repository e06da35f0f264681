package middleware

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/httpsyntax"
)

// Defaults of StaticConfig.
const (
	// DefaultStaticIndex is the file served for a directory request when
	// StaticConfig.Index is "".
	DefaultStaticIndex = "index.html"
	// DefaultStaticCacheControl is sent with files whose names carry no
	// content hash when StaticConfig.CacheControl is "": caches may store
	// them but must revalidate (cheap: a 304 from the ETag or
	// Last-Modified) before each use.
	DefaultStaticCacheControl = "no-cache"
	// ImmutableCacheControl is sent with files whose names carry a content
	// hash (see HashedName): a new version gets a new name, so the old one
	// can be cached for a year without revalidation.
	ImmutableCacheControl = "public, max-age=31536000, immutable"
	// DefaultStaticParam is the name of the trailing wildcard Static reads
	// the file name from, as in "GET /assets/{path...}", when
	// StaticConfig.Param is "".
	DefaultStaticParam = "path"
)

// defaultStaticPrecompressed is StaticConfig.Precompressed's default.
var defaultStaticPrecompressed = []string{"br", "gzip"}

// StaticConfig configures NewStatic and NewStaticRoot. Its zero value is
// the default: index.html for directories, no-cache for plain names and
// ImmutableCacheControl for content-hashed ones (HashedName), br and gzip
// siblings, the file name from the {path...} wildcard, dotfiles hidden.
// The No and Omit fields switch a default off.
type StaticConfig struct {
	// Index is the file served for a request naming a directory. ""
	// means DefaultStaticIndex ("index.html"). A directory request
	// without its trailing slash is redirected (301, relative Location)
	// to the slashed form, so that the page's relative links resolve.
	// Directories are never listed.
	Index string

	// NoIndex switches index files off: directory requests get 404.
	// Default false. It cannot be combined with Index.
	NoIndex bool

	// CacheControl is the Cache-Control value of files whose names carry
	// no content hash. "" means DefaultStaticCacheControl ("no-cache"). A
	// Cache-Control already set by an outer middleware is kept.
	CacheControl string

	// OmitCacheControl sends no Cache-Control with files whose names
	// carry no content hash. Default false. It cannot be combined with
	// CacheControl.
	OmitCacheControl bool

	// Immutable reports whether a file name carries a content hash; such
	// files are sent with ImmutableCacheControl. It gets the
	// slash-separated name inside the file system. Nil means HashedName;
	// func(string) bool { return false } treats no name as hashed.
	Immutable func(name string) bool

	// Precompressed lists the precompressed siblings looked for, in the
	// server's order of preference when the client rates them equally.
	// Recognised: "br" (file.br), "zstd" (file.zst), "gzip" (file.gz); a
	// repeated name counts once, another name is invalid. Nil or empty
	// means "br", "gzip".
	Precompressed []string

	// NoPrecompressed switches precompressed serving off (and with it the
	// Vary: Accept-Encoding it adds). Default false. It cannot be
	// combined with Precompressed.
	NoPrecompressed bool

	// Param is the name of the trailing wildcard that holds the file name
	// when the handler is registered on a pattern such as
	// "GET /assets/{path...}". "" means DefaultStaticParam ("path"); a
	// name holding "{", "}", ".", "/" or a space is invalid. Without such
	// a wildcard in the matched pattern (Mount, or outside Plinth), the
	// file name is the request's URL path.
	Param string

	// Dotfiles serves files and directories whose names start with a dot
	// (".well-known", ".env"). Default false: they are answered with 404,
	// so that a stray .git or .env in the served tree stays private.
	Dotfiles bool
}

// Validate reports the first problem of c that makes NewStatic panic, as
// an error naming the field and the reason, or nil: an unknown
// Precompressed coding, a Param that is not a wildcard name, or a value
// set together with the switch that turns it off.
func (c StaticConfig) Validate() error {
	_, err := c.resolve()
	return err
}

// staticConfig is a StaticConfig with its defaults applied.
type staticConfig struct {
	index        string // "": no index files
	cacheControl string // "": none
	immutable    func(name string) bool
	encodings    []string // none: precompressed serving off
	param        string
	dotfiles     bool
}

// resolve checks c and applies its defaults.
func (c StaticConfig) resolve() (staticConfig, error) {
	r := staticConfig{
		index:        cmp.Or(c.Index, DefaultStaticIndex),
		cacheControl: cmp.Or(c.CacheControl, DefaultStaticCacheControl),
		immutable:    c.Immutable,
		param:        cmp.Or(c.Param, DefaultStaticParam),
		dotfiles:     c.Dotfiles,
	}
	switch {
	case c.NoIndex && c.Index != "":
		return r, fmt.Errorf("middleware: StaticConfig.Index %q set together with NoIndex", c.Index)
	case c.OmitCacheControl && c.CacheControl != "":
		return r, fmt.Errorf("middleware: StaticConfig.CacheControl %q set together with OmitCacheControl", c.CacheControl)
	case c.NoPrecompressed && len(c.Precompressed) > 0:
		return r, fmt.Errorf("middleware: StaticConfig.Precompressed %q set together with NoPrecompressed", c.Precompressed)
	}
	if strings.ContainsAny(r.param, "{}./ ") {
		return r, fmt.Errorf("middleware: StaticConfig.Param %q: not a wildcard name", r.param)
	}
	if c.NoIndex {
		r.index = ""
	}
	if c.OmitCacheControl {
		r.cacheControl = ""
	}
	if r.immutable == nil {
		r.immutable = HashedName
	}
	encodings := c.Precompressed
	if len(encodings) == 0 && !c.NoPrecompressed {
		encodings = defaultStaticPrecompressed
	}
	for _, e := range encodings {
		if staticEncodingExt(e) == "" {
			return r, fmt.Errorf("middleware: StaticConfig.Precompressed: unknown encoding %q (want br, zstd or gzip)", e)
		}
		if !slices.Contains(r.encodings, e) {
			r.encodings = append(r.encodings, e)
		}
	}
	return r, nil
}

// Static serves files from an fs.FS. Make one with NewStatic or
// NewStaticRoot. It is an http.Handler, for Mount and Handle, and its Serve
// method is a native handler. It is safe for concurrent use.
type Static struct {
	fsys         fs.FS
	cfg          staticConfig
	wildcard     string   // "{param...}"
	cacheControl []string // rendered cfg.cacheControl
	allow        []string // Allow of a 405
	vary         *httpsyntax.VaryNames
	meta         sync.Map // served file name -> *staticMeta
	metaCount    atomic.Int64
}

// maxStaticMeta bounds the per-file cache.
const maxStaticMeta = 1 << 14

// staticMeta holds the header values of one served file, rendered once and
// shared by every response, valid while the file's modification time and
// size stay those recorded.
type staticMeta struct {
	mod   time.Time
	size  int64
	etag  []string
	ctype []string // from the original's extension; nil when unknown
}

// NewStatic returns a handler that serves the files of fsys (an os.DirFS,
// an embed.FS, an *os.Root's FS, a fstest.MapFS) for GET and HEAD
// requests, configured by cfg (the zero StaticConfig is the default). It
// panics if fsys is nil or cfg is invalid, with the message
// StaticConfig.Validate returns.
//
//	app.Mount("/assets", middleware.NewStatic(os.DirFS("public"), middleware.StaticConfig{}))
//	app.Get("/assets/{path...}", middleware.NewStatic(assets, middleware.StaticConfig{}).Serve)
//	app.Handle("GET /assets/{path...}", middleware.NewStatic(assets, middleware.StaticConfig{}))
//
// The file name is the value of the matched pattern's trailing {path...}
// wildcard (StaticConfig.Param) or else the request's URL path (Mount strips its
// prefix; its leading slash is dropped). Names that are not clean relative
// paths (fs.ValidPath: "..", ".", empty elements, an absolute path), or
// that hold a backslash or a NUL byte, get a 400 problem; names with an element
// starting with a dot get 404 (StaticConfig.Dotfiles); missing files, special
// files (devices, pipes) and directories without an index file get 404.
// Directories are never listed; one named without its trailing slash is
// redirected to it (301) when it has an index file (StaticConfig.Index).
// Other methods than GET and HEAD get 405 with Allow. Errors are RFC 9457 problems through the App's renderer.
//
// os.DirFS follows symbolic links out of its directory; serve a tree that
// others can write to with NewStaticRoot, whose os.Root refuses to leave it.
//
// Range (206, multipart for several ranges, 416), If-Range, If-Match,
// If-Unmodified-Since, If-None-Match and If-Modified-Since (304) are
// handled by http.ServeContent, which also sets Last-Modified and the
// Content-Type from the extension (sniffing the content when it is
// unknown). The 416 and 412 bodies are ServeContent's plain text.
//
// Entity tags are strong and come from the modification time and size
// ("<mtime ns>-<size>" in hex, as nginx does: no read of the file), cached
// per file. A file system without modification times (embed.FS) gets a
// hash of the content instead (the CRC pair ETag uses), computed once per
// file and cached: such a file system is assumed not to change while
// serving.
//
// Precompressed siblings: when the client accepts br or gzip (Accept-
// Encoding with q-values; q=0 refuses) and file.br or file.gz exists, that
// file is sent with Content-Encoding and the original's Content-Type; its
// own modification time and size make its tag, distinct from the
// original's. Responses carry Vary: Accept-Encoding whenever precompressed
// serving is on, merged into one header line with a Vary already set.
// Range requests always get the identity representation, so byte offsets
// mean the same thing for every client and If-Range compares against the
// identity's tag (StaticConfig.Precompressed, NoPrecompressed).
//
// Caching: names with a content hash (HashedName, or StaticConfig.Immutable)
// get Cache-Control: public, max-age=31536000, immutable; others get
// no-cache (StaticConfig.CacheControl), so they are revalidated with a cheap 304.
//
// Cost: from os.DirFS the time is the system calls (stat, open, fstat,
// read, close), one stat more than http.FileServerFS makes (the one that
// keeps FIFOs and directories from being opened); from memory (embed.FS)
// it is the handler's own work: the path checks, two Stats, the cached tag
// and ServeContent's precondition checks. From an embed.FS, with the
// native Serve, a 200 costs at most 10 allocations and a 304 at most 6,
// routing included (TestStaticAllocations). Measured figures, with the
// command that produces them: docs/middleware.md, "Static files".
func NewStatic(fsys fs.FS, cfg StaticConfig) *Static {
	if fsys == nil {
		panic("middleware: NewStatic(nil)")
	}
	rc, err := cfg.resolve()
	if err != nil {
		panic(err.Error())
	}
	return &Static{
		fsys:         fsys,
		cfg:          rc,
		wildcard:     "{" + rc.param + "...}",
		cacheControl: []string{rc.cacheControl},
		allow:        []string{"GET, HEAD"},
		vary:         httpsyntax.NewVaryNames("Accept-Encoding"),
	}
}

// NewStaticRoot is NewStatic over root.FS(): every name is resolved inside
// root, and symbolic links that lead out of it (or are absolute) fail, so
// the request gets 404. The root must stay open while the handler serves.
// Like any os.Root it does not stop device files or /proc (Static only
// serves regular files) nor bind mounts inside the tree. It panics if root
// is nil or cfg is invalid (StaticConfig.Validate).
func NewStaticRoot(root *os.Root, cfg StaticConfig) *Static {
	if root == nil {
		panic("middleware: NewStaticRoot(nil)")
	}
	return NewStatic(root.FS(), cfg)
}

// ServeHTTP serves the file the request names; see NewStatic. Inside a
// Plinth App, errors go through the App's renderer; outside one, through
// the built-in problem renderer.
func (h *Static) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, rooted := r.URL.Path, true
	if r.Pattern != "" && strings.Contains(r.Pattern, h.wildcard) {
		name, rooted = r.PathValue(h.cfg.param), false
	}
	err := h.serve(w, r, name, rooted)
	if err == nil {
		return
	}
	if c := plinth.CtxOf(r); c != nil {
		prev := c.Writer()
		c.SetWriter(w)
		c.WriteError(err)
		c.SetWriter(prev)
		return
	}
	plinth.HandlerFunc(func(*plinth.Ctx) error { return err }).ServeHTTP(w, r)
}

// Serve is the native form of the handler, for Get and Handle with a
// trailing wildcard: app.Get("/assets/{path...}", h.Serve).
func (h *Static) Serve(c *plinth.Ctx) error {
	name, rooted := c.Request().URL.Path, true
	if strings.Contains(c.Pattern(), h.wildcard) {
		name, rooted = c.Param(h.cfg.param), false
	}
	return h.serve(c.Writer(), c.Request(), name, rooted)
}

// The problems Static returns, made per answer: an ErrorHandler may modify
// the one it gets.
func errStaticBadPath() error  { return plinth.Error(http.StatusBadRequest, "invalid file path") }
func errStaticNotFound() error { return plinth.Error(http.StatusNotFound, "no such file") }
func errStaticMethod() error {
	return plinth.Error(http.StatusMethodNotAllowed, "files are read with GET or HEAD")
}

// serve sends the file name: a URL path if rooted, else a wildcard's value,
// relative.
func (h *Static) serve(w http.ResponseWriter, r *http.Request, name string, rooted bool) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header()["Allow"] = h.allow
		return errStaticMethod()
	}
	name, dirSlash, err := h.clean(name, rooted)
	if err != nil {
		return err
	}
	name, redirect, err := h.resolve(name, dirSlash)
	if err != nil {
		return err
	}
	if redirect {
		redirectToDir(w, r, name)
		return nil
	}
	served, encoding := name, ""
	if len(h.cfg.encodings) > 0 {
		if _, ranged := r.Header["Range"]; !ranged {
			served, encoding = h.precompressed(r, name)
		}
	}
	f, info, err := h.open(served)
	if err != nil {
		return err
	}
	defer f.Close()
	content, err := staticSeeker(f)
	if err != nil {
		return plinth.Error(http.StatusInternalServerError, "").Wrap(err)
	}
	meta, err := h.fileMeta(served, name, info, content)
	if err != nil {
		return plinth.Error(http.StatusInternalServerError, "").Wrap(err)
	}
	h.setHeaders(w.Header(), name, meta, encoding, info.Size())
	http.ServeContent(w, r, name, info.ModTime(), content)
	return nil
}

// resolve finds the regular file that the cleaned name stands for: the
// name itself, or a directory's index file. redirect reports a directory
// named without its trailing slash (dirSlash false) that has an index
// file: it is redirected to the slashed form rather than served.
func (h *Static) resolve(name string, dirSlash bool) (file string, redirect bool, err error) {
	info, err := fs.Stat(h.fsys, name)
	if err != nil {
		return "", false, errStaticNotFound()
	}
	if !info.IsDir() {
		if dirSlash || !info.Mode().IsRegular() {
			return "", false, errStaticNotFound()
		}
		return name, false, nil
	}
	if h.cfg.index == "" {
		return "", false, errStaticNotFound()
	}
	idx := path.Join(name, h.cfg.index)
	if ii, err := fs.Stat(h.fsys, idx); err != nil || !ii.Mode().IsRegular() {
		return "", false, errStaticNotFound()
	}
	if !dirSlash {
		return name, true, nil
	}
	return idx, false, nil
}

// redirectToDir answers a request for the directory dir named without its
// trailing slash with a 301 to the slashed form, query kept.
func redirectToDir(w http.ResponseWriter, r *http.Request, dir string) {
	// "docs" -> "./docs/": relative, so that it works under any mount
	// prefix, and "./" so that a name like "a:b" is not read as a scheme.
	target := "./" + path.Base(dir) + "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	w.Header()["Location"] = []string{target}
	w.WriteHeader(http.StatusMovedPermanently)
}

// open opens the file to send and returns it with its own information,
// read from the open file: the name may have been replaced since it was
// looked up, and the tag must describe what is sent.
func (h *Static) open(served string) (fs.File, fs.FileInfo, error) {
	f, err := h.fsys.Open(served)
	if err != nil {
		return nil, nil, errStaticNotFound()
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, errStaticNotFound()
	}
	return f, info, nil
}

// setHeaders sets the response headers of the file name, sent as the
// representation meta describes (encoded with encoding, of size bytes, when
// a precompressed sibling). It runs only once the file is open: an error
// answer must not carry the file's caching headers.
func (h *Static) setHeaders(hdr http.Header, name string, meta *staticMeta, encoding string, size int64) {
	hdr["Etag"] = meta.etag
	if _, ok := hdr["Cache-Control"]; !ok {
		if h.cfg.immutable != nil && h.cfg.immutable(name) {
			hdr["Cache-Control"] = immutableCacheControl
		} else if h.cfg.cacheControl != "" {
			hdr["Cache-Control"] = h.cacheControl
		}
	}
	if len(h.cfg.encodings) > 0 {
		h.vary.Add(hdr)
	}
	if _, ok := hdr["Content-Type"]; !ok && meta.ctype != nil {
		hdr["Content-Type"] = meta.ctype
	}
	if encoding != "" {
		if _, ok := hdr["Content-Type"]; !ok {
			hdr["Content-Type"] = staticOctetStream
		}
		hdr["Content-Encoding"] = staticEncodingValue(encoding)
		// ServeContent leaves Content-Length out when Content-Encoding is
		// set; the encoded file's size is the right one.
		hdr["Content-Length"] = []string{strconv.FormatInt(size, 10)}
	}
}

// Shared header values; never written into.
var (
	immutableCacheControl = []string{ImmutableCacheControl}
	staticOctetStream     = []string{"application/octet-stream"}
	staticBr              = []string{"br"}
	staticGzip            = []string{"gzip"}
	staticZstd            = []string{"zstd"}
)

func staticEncodingValue(e string) []string {
	switch e {
	case "br":
		return staticBr
	case "zstd":
		return staticZstd
	}
	return staticGzip
}

// clean turns the requested name into a name inside the file system:
// without the leading slash of a URL path (rooted), "." for the root, and
// whether it ended in a slash (a directory request). A wildcard value is
// relative already: one that starts with a slash ("/etc/passwd", from "%2F"
// in the request) is absolute and refused.
func (h *Static) clean(name string, rooted bool) (string, bool, error) {
	if strings.IndexByte(name, 0) >= 0 || strings.IndexByte(name, '\\') >= 0 {
		return "", false, errStaticBadPath()
	}
	if rooted {
		name = strings.TrimPrefix(name, "/")
	} else if strings.HasPrefix(name, "/") {
		return "", false, errStaticBadPath()
	}
	dirSlash := name == "" || strings.HasSuffix(name, "/")
	if dirSlash {
		name = strings.TrimSuffix(name, "/")
	}
	if name == "" {
		return ".", true, nil
	}
	if !fs.ValidPath(name) {
		return "", false, errStaticBadPath()
	}
	if !h.cfg.dotfiles {
		for el := range strings.SplitSeq(name, "/") {
			if el[0] == '.' {
				return "", false, errStaticNotFound()
			}
		}
	}
	return name, dirSlash, nil
}

// precompressed returns the sibling of name to send given the request's
// Accept-Encoding, and its encoding, or name itself and "". It only checks
// that the sibling is a regular file: what is sent is described by the
// opened file's own information (see open).
func (h *Static) precompressed(r *http.Request, name string) (string, string) {
	ae := r.Header["Accept-Encoding"]
	if len(ae) == 0 {
		return name, ""
	}
	// Try the accepted encodings by the client's weight, the server's
	// order breaking ties, as the compress middleware picks one; at most a
	// few stats.
	acc := httpsyntax.ParseAcceptEncoding(ae, h.cfg.encodings)
	var tried uint
	for i := acc.Best(0); i >= 0; i = acc.Best(tried) {
		tried |= 1 << i
		e := h.cfg.encodings[i]
		sib := name + staticEncodingExt(e)
		if si, err := fs.Stat(h.fsys, sib); err == nil && si.Mode().IsRegular() {
			return sib, e
		}
	}
	return name, ""
}

func staticEncodingExt(e string) string {
	switch e {
	case "br":
		return ".br"
	case "gzip":
		return ".gz"
	case "zstd":
		return ".zst"
	}
	return ""
}

// staticSeeker returns f as an io.ReadSeeker, reading it into memory when
// the file system's files cannot seek.
func staticSeeker(f fs.File) (io.ReadSeeker, error) {
	if rs, ok := f.(io.ReadSeeker); ok {
		return rs, nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(b), nil
}

// fileMeta returns the header values of the served file (name's sibling
// when encoded), from the cache when the file is unchanged.
func (h *Static) fileMeta(served, name string, info fs.FileInfo, content io.ReadSeeker) (*staticMeta, error) {
	mod, size := info.ModTime(), info.Size()
	if v, ok := h.meta.Load(served); ok {
		m := v.(*staticMeta)
		if m.size == size && m.mod.Equal(mod) {
			return m, nil
		}
	}
	var b []byte
	if mod.IsZero() || mod.Unix() == 0 {
		// No modification time (embed.FS): hash the content once.
		c, i := crc32.New(etagCastagnoli), crc32.NewIEEE()
		if _, err := io.Copy(io.MultiWriter(c, i), content); err != nil {
			return nil, err
		}
		if _, err := content.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		sum := uint64(c.Sum32())<<32 | uint64(i.Sum32())
		b = append(b, '"')
		b = etagAppendHex(b, sum, 16)
		b = append(b, '"')
	} else {
		b = append(b, '"')
		b = strconv.AppendUint(b, uint64(mod.UnixNano()), 16)
		b = append(b, '-')
		b = strconv.AppendUint(b, uint64(size), 16)
		b = append(b, '"')
	}
	m := &staticMeta{mod: mod, size: size, etag: []string{string(b)}}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		m.ctype = []string{ct}
	}
	if _, loaded := h.meta.Swap(served, m); !loaded {
		if h.metaCount.Add(1) > maxStaticMeta {
			// Too many files to remember: keep the cache bounded.
			h.meta.Delete(served)
			h.metaCount.Add(-1)
		}
	}
	return m, nil
}

// etagAppendHex appends v as exactly digits hex digits.
func etagAppendHex(b []byte, v uint64, digits int) []byte {
	const hex = "0123456789abcdef"
	for i := (digits - 1) * 4; i >= 0; i -= 4 {
		b = append(b, hex[(v>>uint(i))&0xf])
	}
	return b
}

// HashedName reports whether a file name carries a content hash, the
// default test for immutable caching. It looks, in the base name without
// its extension, for a piece of 8 to 64 characters from [0-9A-Za-z_-] that
// holds a digit and a letter and is hex in one case ("3f9a1c2b",
// "3F9A1C2B"), base32 in upper case ("Q5GHVN2D") or base64url with an
// upper-case letter after a lower-case one ("BjC8nQ2x", so that a
// capitalised word with a number, "Section12", is not taken for a hash).
// The piece is either a dot-separated part after the first
// ("app.3f9a1c2b.js", "main.3f9a1c2b.chunk.js") or follows a dash
// ("app-3F9A1C2B.js", "index-BjC8nQ2x.js"). Names such as "app.js",
// "jquery-3.7.1.min.js", "logo-2024.png" or "report-20241130.pdf" are not
// hashed. A false positive would keep a stale file in caches for a year, so
// the test errs the other way (a hash that happens to have no digit is
// missed and merely revalidated): pass your own as StaticConfig.Immutable for
// other naming schemes.
func HashedName(name string) bool {
	base := path.Base(name)
	parts := strings.Split(base, ".")
	if len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		if i > 0 && staticHashLike(p) {
			return true
		}
		for j := 0; j < len(p); j++ {
			if p[j] == '-' && staticHashLike(p[j+1:]) {
				return true
			}
		}
	}
	return false
}

func staticHashLike(s string) bool {
	if len(s) < 8 || len(s) > 64 {
		return false
	}
	var digit, lower, upper, hexOnly = false, false, false, true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
			hexOnly = hexOnly && c <= 'f'
		case c >= 'A' && c <= 'Z':
			upper = true
			hexOnly = hexOnly && c <= 'F'
		case c == '_' || c == '-':
			hexOnly = false
		default:
			return false
		}
	}
	switch {
	case !digit || !(lower || upper):
		return false
	case hexOnly && !(lower && upper):
		return true // hex, one case
	case upper && !lower:
		return true // base32
	}
	// Mixed case (base64url): an upper-case letter after a lower-case one,
	// so that a capitalised word with a number ("Section12") is not taken
	// for a hash.
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			return true
		}
	}
	return false
}
