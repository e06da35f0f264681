package compress

import "github.com/plinth-go/plinth/middleware/compress/internal/httpsyntax"

// Content codings this package produces, by their HTTP names.
const (
	Brotli = "br"   // RFC 7932, github.com/andybalholm/brotli
	Zstd   = "zstd" // RFC 8878, github.com/klauspost/compress/zstd
	Gzip   = "gzip" // RFC 1952, github.com/klauspost/compress/gzip
)

// maxEncodings is the number of codings this package knows.
const maxEncodings = 3

// Negotiation weighs at most httpsyntax.MaxCodings codings.
var _ [httpsyntax.MaxCodings - maxEncodings]struct{}

// negotiate picks the coding for a request whose Accept-Encoding field
// lines are values, among names (the server's preference order).
//
// It returns the index in names of the coding to use, or -1 for none, and
// whether the client forbade the identity coding (identity;q=0, or *;q=0
// without an identity entry), in which case a response is compressed even
// below the minimum size when a coding is acceptable.
//
// The field is read by httpsyntax.ParseAcceptEncoding, as the core's
// static file handler reads it (RFC 9110 §12.5.3: q=0 refuses, "*" covers
// the codings not named, x-gzip is gzip, malformed elements are ignored; a
// coding named twice keeps its first weight unless one of them is q=0).
// Among acceptable codings the highest q-value wins, and the server's
// order breaks ties. It never allocates.
func negotiate(values []string, names []string) (idx int, identityForbidden bool) {
	a := httpsyntax.ParseAcceptEncoding(values, names)
	return a.Best(0), a.IdentityForbidden()
}
