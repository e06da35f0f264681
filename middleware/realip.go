package middleware

import (
	"net/http"
	"net/netip"

	"github.com/plinth-go/plinth"
)

// RealIP returns middleware that makes the request's RemoteAddr the
// client's address, for code below it that reads RemoteAddr: plain
// net/http handlers, standard middleware, third-party libraries (rate
// limiters, loggers). The client is c.ClientIP(): the connection's peer, or,
// when the peer is one of App.TrustedProxies (or PLINTH_TRUSTED_PROXIES),
// the nearest untrusted address of Forwarded or X-Forwarded-For. Without
// trusted proxies RealIP changes nothing: forwarding headers from untrusted
// peers are never believed.
//
// When the client differs from the peer, the rest of the chain gets a
// shallow copy of the request (c.SetRequest; the original is put back when
// it returns) whose RemoteAddr is the client's address with port 0
// ("203.0.113.7:0", "[2001:db8::1]:0"): the peer's port belongs to the
// proxy's connection and the client's real port is not reliably known, so
// "0" says "unknown" instead of inventing an address, while keeping the
// host:port form that net.SplitHostPort expects. That costs two allocations
// (the copy and the address string). When the client is the peer it costs
// nothing (no allocation).
//
// RealIP does not pretend the request came over TLS: r.TLS stays nil and
// r.URL.Scheme untouched. Ask c.Secure() or c.Scheme() (plain handlers:
// plinth.CtxOf(r).Secure()), which read a trusted proxy's
// X-Forwarded-Proto or Forwarded proto=; like c.PeerAddr() they keep to the
// connection's peer below RealIP (TestRealIPKeepsSecure).
// Install RealIP with Use on the App so that it also covers the
// fallbacks.
//
// Measured figures, with the command that produces them:
// docs/middleware.md, "Measured cost of CORS, Real IP and Access log".
func RealIP() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			ip := c.ClientIP()
			if !ip.IsValid() || ip == c.PeerAddr().Addr().Unmap() {
				return next(c)
			}
			r := c.Request()
			r2 := new(http.Request)
			*r2 = *r
			r2.RemoteAddr = netip.AddrPortFrom(ip, 0).String()
			c.SetRequest(r2)
			err := next(c)
			c.SetRequest(r)
			return err
		}
	}
}
