package api

import (
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// urlPattern is what format=url adds to format=uri, in the document as in
// the validator: an http or https scheme (lowercase), then a host that does
// not start with ':' and has no user info, then the end or a path, query or
// fragment.
const urlPattern = `^https?://[^/?#@:\s][^/?#@\s]*([/?#]|$)`

// urlRegexp is urlPattern, compiled.
var urlRegexp = regexp.MustCompile(urlPattern)

// validFormat reports whether s is a well-formed value of format.
func validFormat(format, s string) bool {
	switch format {
	case "email":
		return validEmail(s)
	case "uuid":
		return validUUID(s)
	case "uri":
		return validURI(s)
	case "url":
		return urlRegexp.MatchString(s) && validURI(s)
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "ipv4":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	case "ipv6":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && a.Zone() == ""
	}
	return true
}

// validURI accepts an absolute URI (RFC 3986: a scheme, then anything that
// parses), with an IPv6 host only in brackets.
func validURI(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return false
	}
	if h := u.Hostname(); strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		return strings.Contains(u.Host, "[") && err == nil && a.Is6() && a.Zone() == ""
	}
	return true
}

// validEmail accepts local@domain with a dot-separated domain of letters,
// digits and hyphens, and a local part without blanks, as HTML's
// input type=email does.
func validEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || len(s) > 254 {
		return false
	}
	for i := 0; i < at; i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>[]:;@\\,\"", c) >= 0 {
			return false
		}
	}
	domain := s[at+1:]
	for {
		label, rest, more := strings.Cut(domain, ".")
		if !validLabel(label) {
			return false
		}
		if !more {
			return true
		}
		domain = rest
	}
}

// validLabel accepts a domain label: 1 to 63 letters, digits and hyphens,
// not starting or ending with a hyphen.
func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validUUID accepts the 8-4-4-4-12 hexadecimal form.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
