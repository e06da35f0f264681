// Package middleware is Plinth's optional catalogue of native middleware
// (plinth.Middleware), one concern per file, standard library only.
//
// Install one on the whole App or a group with Use (it then also runs on
// the scope's fallbacks: 404, 405, automatic OPTIONS, redirects), or on
// single routes with With. Each is configured by a Config struct whose
// fields' zero values are the documented defaults (a few are required:
// CORSConfig's origins, ConcurrencyLimiterConfig.Max,
// RateLimiterConfig.Limit's Rate); a configuration that can be wrong has a
// Validate method, and the constructor panics with its message, at startup.
// Stateless middleware is a function named after its concern (CORS(cfg));
// middleware with state or controls is a type made by NewX(cfg), whose
// Middleware method gives the middleware. Each doc comment gives the
// middleware's defaults and its cost per request in kind (what it does,
// what it allocates); the measured figures, each with the command that
// produces it, are in docs/middleware.md.
//
// Catalogue:
//
//   - NewConcurrencyLimiter: at most N handlers in flight; a bounded queue
//     with a bounded wait, then 503 with Retry-After (load shedding).
//   - NewRateLimiter: token bucket per client (or any key), 429 with
//     Retry-After and the IETF RateLimit and RateLimit-Policy headers;
//     pluggable RateLimitStore, in-memory MemoryRateLimitStore (NewMemoryRateLimitStore).
//   - NewMaintenance: a switch (Enable, Disable, an admin endpoint, a
//     signal) that answers 503 with Retry-After, except on allow-listed
//     paths.
//   - CORS: cross-origin resource sharing, preflights included.
//   - RealIP: the client address from trusted proxies' headers.
//   - AccessLog: one structured log line per request.
//   - ETag: entity tags and conditional requests.
//   - NewStatic, NewStaticRoot: files from an fs.FS or an os.Root (Static,
//     an http.Handler).
//   - compress (github.com/plinth-go/plinth/middleware/compress, its own
//     module): br, zstd and gzip response compression.
package middleware
