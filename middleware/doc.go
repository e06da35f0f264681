// Package middleware is Plinth's optional catalogue of native middleware
// (plinth.Middleware), one concern per file, standard library only.
//
// Install one on the whole App or a group with UseNative (it then also runs
// on the scope's fallbacks: 404, 405, automatic OPTIONS, redirects), or on
// single routes with WithNative. Each doc comment gives the middleware's
// defaults and its cost per request in kind (what it does, what it
// allocates); the measured figures, each with the command that produces it,
// are in docs/middleware.md.
//
// Catalogue:
//
//   - ConcurrencyLimit: at most N handlers in flight; a bounded queue with a
//     bounded wait, then 503 with Retry-After (load shedding).
//   - RateLimit: token bucket per client (or any key), 429 with Retry-After
//     and the IETF RateLimit and RateLimit-Policy headers; pluggable Store,
//     in-memory MemoryStore.
//   - Maintenance: a switch (Enable, Disable, an admin endpoint, a signal)
//     that answers 503 with Retry-After, except on allow-listed paths.
//   - CORS: cross-origin resource sharing, preflights included.
//   - RealIP: the client address from trusted proxies' headers.
//   - AccessLog: one structured log line per request.
//   - ETag: entity tags and conditional requests.
//   - Static: files from an fs.FS or an os.Root (a handler).
//   - compress (github.com/plinth-go/plinth/middleware/compress, its own
//     module): br, zstd and gzip response compression.
package middleware
