package plinth

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// trustedProxies is the set of peers whose forwarding headers are believed.
type trustedProxies []netip.Prefix

func (tp trustedProxies) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range tp {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseTrustedProxies reads a comma-separated list of CIDR prefixes or single
// addresses, as PLINTH_TRUSTED_PROXIES holds them.
func parseTrustedProxies(s string) (trustedProxies, error) {
	var tp trustedProxies
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			tp = append(tp, unmapPrefix(p))
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR prefix", f)
		}
		a = a.Unmap()
		tp = append(tp, netip.PrefixFrom(a, a.BitLen()))
	}
	return tp, nil
}

// unmapPrefix masks p and turns an IPv4-mapped IPv6 prefix (::ffff:10.0.0.0/104)
// into its IPv4 form, since addresses are unmapped before matching.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	p = p.Masked()
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}

// forwardedHeader is the header the trusted proxies write.
type forwardedHeader int

const (
	xForwardedFor forwardedHeader = iota // X-Forwarded-For and X-Forwarded-Proto
	forwarded                            // RFC 7239 Forwarded
)

// parseForwardedHeader reads App.ForwardedHeader or PLINTH_FORWARDED_HEADER;
// "" is the default, X-Forwarded-For.
func parseForwardedHeader(s string) (forwardedHeader, error) {
	switch {
	case s == "" || strings.EqualFold(s, "X-Forwarded-For"):
		return xForwardedFor, nil
	case strings.EqualFold(s, "Forwarded"):
		return forwarded, nil
	}
	return xForwardedFor, fmt.Errorf(`want "X-Forwarded-For" (the default) or "Forwarded"`)
}

// ClientIP returns the address of the client. It is the connection's peer,
// unless the peer is one of App.TrustedProxies: then the forwarding header
// the proxies write (App.ForwardedHeader: X-Forwarded-For by default, or
// Forwarded; the other is ignored) is read right to left, each hop added by
// a trusted proxy, and the first address that is not itself a trusted proxy
// is the client. A hop that does not
// parse stops the walk at the proxy that wrote it; when every hop is trusted
// the leftmost is the client. Headers from untrusted peers are never read.
// The result is computed once per request; with no trusted proxies it is the
// peer, at no cost beyond PeerAddr. IPv4-mapped IPv6 addresses are unmapped.
func (c *Ctx) ClientIP() netip.Addr {
	if !c.clientSet {
		c.client = c.resolveClient()
		c.clientSet = true
	}
	return c.client
}

func (c *Ctx) resolveClient() netip.Addr {
	peer := c.PeerAddr().Addr().Unmap()
	tp := c.trusted()
	if len(tp) == 0 || !tp.contains(peer) {
		return peer
	}
	h := c.req.Header
	if c.t.forwarded == forwarded {
		return walkHops(peer, tp, h.Values("Forwarded"), forwardedFor)
	}
	return walkHops(peer, tp, h.Values("X-Forwarded-For"), parseHop)
}

// walkHops walks the comma-separated hops of the header lines from the
// right; hop extracts an element's address.
func walkHops(peer netip.Addr, tp trustedProxies, lines []string, hop func(string) (netip.Addr, bool)) netip.Addr {
	last := peer // the nearest trusted hop so far
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		for line != "" {
			var elem string
			if j := strings.LastIndexByte(line, ','); j >= 0 {
				line, elem = line[:j], line[j+1:]
			} else {
				line, elem = "", line
			}
			elem = strings.TrimSpace(elem)
			if elem == "" {
				continue
			}
			a, ok := hop(elem)
			if !ok {
				return last
			}
			if !tp.contains(a) {
				return a
			}
			last = a
		}
	}
	return last
}

// parseHop parses one X-Forwarded-For element or Forwarded node: an address,
// possibly bracketed and with a port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return netip.Addr{}, false
		}
		s = s[1:end]
	} else if strings.Count(s, ":") == 1 {
		s = s[:strings.IndexByte(s, ':')] // IPv4 with a port
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// forwardedFor extracts the for= address of one Forwarded element
// (for=192.0.2.1;proto=https, for="[2001:db8::1]:443"). An element without
// for=, or with an obfuscated or unknown node, does not parse.
func forwardedFor(elem string) (netip.Addr, bool) {
	v, ok := forwardedParam(elem, "for")
	if !ok {
		return netip.Addr{}, false
	}
	return parseHop(v)
}

// forwardedParam returns the value of name in one Forwarded element, quotes
// removed.
func forwardedParam(elem, name string) (string, bool) {
	for elem != "" {
		var pair string
		pair, elem, _ = strings.Cut(elem, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), name) {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		return v, true
	}
	return "", false
}

// Secure reports whether the client reached the service over HTTPS: the
// connection is TLS, or the peer is a trusted proxy (App.TrustedProxies) that
// says so in the header it writes (App.ForwardedHeader): the last value of
// X-Forwarded-Proto by default, or proto=https in the last element of
// Forwarded. The default layer sends
// Strict-Transport-Security only when Secure is true.
func (c *Ctx) Secure() bool {
	if c.req.TLS != nil {
		return true
	}
	tp := c.trusted()
	if len(tp) == 0 || !tp.contains(c.PeerAddr().Addr()) {
		return false
	}
	return forwardedHTTPS(c.req.Header, c.t.forwarded)
}

// Scheme returns "https" when Secure, "http" otherwise.
func (c *Ctx) Scheme() string {
	if c.Secure() {
		return "https"
	}
	return "http"
}

// forwardedHTTPS reads the nearest proxy's protocol claim.
func forwardedHTTPS(h http.Header, fh forwardedHeader) bool {
	if fh == forwarded {
		fw := h.Values("Forwarded")
		if len(fw) == 0 {
			return false
		}
		last := fw[len(fw)-1]
		if j := strings.LastIndexByte(last, ','); j >= 0 {
			last = last[j+1:]
		}
		proto, _ := forwardedParam(last, "proto")
		return strings.EqualFold(proto, "https")
	}
	xfp := h.Values("X-Forwarded-Proto")
	if len(xfp) == 0 {
		return false
	}
	last := xfp[len(xfp)-1]
	if j := strings.LastIndexByte(last, ','); j >= 0 {
		last = last[j+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// FromTrustedProxy reports whether the connection's peer is one of the
// App's trusted proxies (App.TrustedProxies, or PLINTH_TRUSTED_PROXIES): the
// peer whose forwarding headers ClientIP and Secure believe. False when no
// proxy is trusted, the default. Middleware deciding whether to believe
// other headers a proxy may set (the tracing module's traceparent) asks it.
func (c *Ctx) FromTrustedProxy() bool {
	tp := c.trusted()
	return len(tp) != 0 && tp.contains(c.PeerAddr().Addr())
}

func (c *Ctx) trusted() trustedProxies {
	if c.t == nil {
		return nil
	}
	return c.t.trusted
}
