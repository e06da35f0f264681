// Package compress is Plinth's response compression middleware: brotli,
// zstd and gzip, negotiated from Accept-Encoding, with pooled encoders.
//
// It is a module of its own (github.com/plinth-go/plinth/middleware/compress)
// so that the core module keeps to the standard library and golang.org/x:
// the encoders come from github.com/andybalholm/brotli and
// github.com/klauspost/compress.
//
//	app := plinth.New()
//	app.Use(compress.New(compress.Config{})) // zstd > br > gzip, 1 KiB minimum, text-like types
//
// Install it on the App (it then also covers the 404 and 405 answers) or
// on a group. Middleware that must see the final status or the bytes on the
// wire, an access log, goes outside it (installed before it): inside, a
// response still held back to decide on compression has no status yet.
//
// # What gets compressed
//
// A response is compressed when the client accepts a coding (q-values,
// "*" and "identity;q=0" as RFC 9110 says), the request is not HEAD and has
// no Range header, the status is not 1xx, 204, 206 or 304, the handler set
// no Content-Encoding, Content-Range or Cache-Control: no-transform, its
// Content-Type is in the allowlist (DefaultContentTypes), and its body
// reaches the minimum size (DefaultMinSize, 1 KiB). To find the size, the
// writer holds up to the minimum size of body before it writes the header; a
// Content-Length set by the handler decides at once, and a Flush starts the
// response (compressed, when its type allows) so that streams stream.
//
// A compressed response drops Content-Length and Accept-Ranges and gets a
// weak ETag (W/"...": the bytes are not those of the uncompressed
// representation, and If-None-Match compares weakly, so conditional GETs
// still match). Every response of an allowed type carries
// Vary: Accept-Encoding, compressed or not, so that shared caches keep the
// variants apart; a Vary already set (by CORS, say) gets Accept-Encoding
// merged into it, and the result is one header line.
//
// # Cost
//
// The middleware itself allocates nothing per request once its pools are
// warm. Merging Accept-Encoding into a Vary set by an outer layer
// allocates nothing either once the merge is remembered (the first few
// distinct values seen are); another merge costs two allocations (the line
// and its slice), and a weakened ETag or a sniffed Content-Type one each.
//
// Almost all of a compressed response's time is the encoder's: brotli
// quality 4 takes several times what gzip level 5 does for smaller bodies,
// and zstd level 1 less time than gzip level 5 for bodies about as small as
// brotli 4's. The measured times and sizes, with the commands that
// produce them, are in docs/middleware.md, "Compression".
// Servers short of CPU can put zstd first or leave brotli out:
//
//	compress.New(compress.Config{Encodings: []string{compress.Zstd, compress.Gzip}})
package compress
