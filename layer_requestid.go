package plinth

import (
	"crypto/rand"
	"encoding/binary"
	"net/http"
	"os"
	"sync/atomic"
	"time"
	"unsafe"
)

// maxRequestIDLen bounds an incoming X-Request-ID that is kept.
const maxRequestIDLen = 64

// assign keeps a well-formed incoming X-Request-ID or generates one, and
// echoes it on the response.
func (g *idGenerator) assign(c *Ctx, h http.Header, now time.Time) {
	if in := c.req.Header["X-Request-Id"]; len(in) == 1 && validRequestID(in[0]) {
		c.requestID = in[0]
		h["X-Request-Id"] = in // the request's own slice: no allocation
		return
	}
	id := g.next(now)
	c.requestID = id.s
	h["X-Request-Id"] = id.v[:]
}

// validRequestID accepts 1 to 64 bytes of letters, digits, '-', '_', '.'.
func validRequestID(s string) bool {
	if s == "" || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// idGenerator makes request IDs: 26 characters of Crockford base32 over 128
// bits (48 bits of milliseconds, a 48-bit random process prefix, a 32-bit
// counter), so IDs sort by time, are unique within the process and, with the
// random prefix, across processes. No system call per ID: the clock is read
// through the vDSO and the randomness is drawn once.
type idGenerator struct {
	prefix  [6]byte
	counter atomic.Uint32
}

func (g *idGenerator) init() {
	if _, err := rand.Read(g.prefix[:]); err != nil {
		binary.BigEndian.PutUint32(g.prefix[:], uint32(time.Now().UnixNano()))
		binary.BigEndian.PutUint16(g.prefix[4:], uint16(os.Getpid()))
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	g.counter.Store(binary.BigEndian.Uint32(b[:]))
}

// requestID is a generated ID with the header slice that carries it, in one
// allocation.
type requestID struct {
	b [26]byte
	s string
	v [1]string
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func (g *idGenerator) next(now time.Time) *requestID {
	var raw [16]byte
	ms := uint64(now.UnixMilli())
	raw[0], raw[1], raw[2], raw[3], raw[4], raw[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	copy(raw[6:12], g.prefix[:])
	binary.BigEndian.PutUint32(raw[12:], g.counter.Add(1))
	hi, lo := binary.BigEndian.Uint64(raw[:8]), binary.BigEndian.Uint64(raw[8:])
	id := new(requestID)
	// 128 bits in 26 five-bit digits, most significant first (the first
	// digit holds the top 3 bits).
	for i := 25; i >= 0; i-- {
		id.b[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	id.s = unsafe.String(&id.b[0], len(id.b)) // id.b is never written again
	id.v[0] = id.s
	return id
}
