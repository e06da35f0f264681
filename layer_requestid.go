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
	id, v := g.next(&c.ids, now)
	c.requestID = id
	h["X-Request-Id"] = v
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
//
// The encoding follows the layout: the first 10 characters are the
// milliseconds alone (3 + 9*5 = 48 bits), the next 9 the prefix's top 45
// bits, rendered once; character 19 holds the prefix's last 3 bits and the
// counter's top 2, the last 6 the counter's other 30 bits. So an ID costs
// eight lookups of two characters (base32Pairs) and one copy, instead of
// 26 shifts of a 128-bit number.
type idGenerator struct {
	prefix  [6]byte
	mid     [9]byte // characters 10 to 18: the prefix's top 45 bits
	low3    byte    // the prefix's last 3 bits, shifted to the top of character 19
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
	g.renderPrefix()
}

// renderPrefix renders the prefix's characters (init, and tests that set a prefix).
func (g *idGenerator) renderPrefix() {
	p := uint64(g.prefix[0])<<40 | uint64(g.prefix[1])<<32 | uint64(g.prefix[2])<<24 |
		uint64(g.prefix[3])<<16 | uint64(g.prefix[4])<<8 | uint64(g.prefix[5])
	for i := range g.mid {
		g.mid[i] = crockford[p>>(43-5*i)&31]
	}
	g.low3 = byte(p&7) << 2
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// base32Pairs holds the two Crockford characters of every 10-bit value,
// most significant first.
var base32Pairs = func() (t [1024][2]byte) {
	for v := range t {
		t[v] = [2]byte{crockford[v>>5], crockford[v&31]}
	}
	return t
}()

// idsPerBlock is how many IDs share one allocation (idBlock).
const idsPerBlock = 32

// idBlock holds the bytes of idsPerBlock request IDs and the header slices
// that carry them: one allocation serves that many requests. Each ID's
// bytes and slice element are written once, before the ID is handed out,
// and never again; an ID kept after its request keeps its block alive
// (about 1.3 KiB).
type idBlock struct {
	b [idsPerBlock][26]byte
	v [idsPerBlock]string
}

// idSource is a Ctx's supply of ID storage, so that taking an ID's room
// needs no synchronization: each pooled Ctx cuts its IDs from its own block.
type idSource struct {
	blk  *idBlock
	used int
}

// next generates an ID into the next free slot of src's block and returns
// it with the header slice that carries it.
func (g *idGenerator) next(src *idSource, now time.Time) (string, []string) {
	if src.blk == nil || src.used == idsPerBlock {
		src.blk, src.used = new(idBlock), 0
	}
	i := src.used
	src.used++
	b := &src.blk.b[i]
	ms := uint64(now.UnixMilli()) & (1<<48 - 1)
	ctr := g.counter.Add(1)
	// Characters 0 to 9: the 48 bits of ms (the first holds its top 3).
	b[0], b[1] = base32Pairs[ms>>40&1023][0], base32Pairs[ms>>40&1023][1]
	b[2], b[3] = base32Pairs[ms>>30&1023][0], base32Pairs[ms>>30&1023][1]
	b[4], b[5] = base32Pairs[ms>>20&1023][0], base32Pairs[ms>>20&1023][1]
	b[6], b[7] = base32Pairs[ms>>10&1023][0], base32Pairs[ms>>10&1023][1]
	b[8], b[9] = base32Pairs[ms&1023][0], base32Pairs[ms&1023][1]
	copy(b[10:19], g.mid[:])
	b[19] = crockford[g.low3|byte(ctr>>30)]
	b[20], b[21] = base32Pairs[ctr>>20&1023][0], base32Pairs[ctr>>20&1023][1]
	b[22], b[23] = base32Pairs[ctr>>10&1023][0], base32Pairs[ctr>>10&1023][1]
	b[24], b[25] = base32Pairs[ctr&1023][0], base32Pairs[ctr&1023][1]
	s := unsafe.String(&b[0], len(b)) // b is never written again
	src.blk.v[i] = s
	return s, src.blk.v[i : i+1 : i+1]
}
