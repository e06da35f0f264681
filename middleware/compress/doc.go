// Package compress is Plinth's response compression middleware: brotli,
// zstd and gzip, negotiated from Accept-Encoding, with pooled encoders.
//
// It is a module of its own (github.com/plinth-go/plinth/middleware/compress)
// so that the core module keeps to the standard library and golang.org/x:
// the encoders come from github.com/andybalholm/brotli and
// github.com/klauspost/compress.
//
//	app := plinth.New()
//	app.UseNative(compress.New()) // zstd > br > gzip, 1 KiB minimum, text-like types
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
// New's doc comment has the measured figures (BenchmarkCompress in
// bench/mw_compress_test.go, a 4 KiB JSON response). The middleware itself
// allocates nothing per request once its pools are warm. Merging
// Accept-Encoding into a Vary set by an outer layer allocates nothing either
// once the merge is remembered (the first few distinct values seen are);
// another merge costs two allocations (the line and its slice), and a
// weakened ETag or a sniffed Content-Type one each.
//
// Almost all of a compressed response's time is the encoder. On the same
// machine (BenchmarkCompressLevels, bench/run-catalogue.sh: 4 KiB and 64 KiB
// of JSON, 16 KiB of HTML), brotli quality 4 took 3 to 5 times what gzip
// level 5 did for bodies 16-32% smaller, and zstd level 1 took less than
// gzip level 5, with bodies 28-35% smaller: smaller than brotli 4's on the
// 4 KiB JSON and the HTML (338 bytes against 392, 1,258 against 1,335), a
// little larger on the 64 KiB JSON (5,128 against 4,944).
// Servers short of CPU can put zstd first or leave brotli out:
//
//	compress.New(compress.WithEncodings(compress.Zstd, compress.Gzip))
package compress
