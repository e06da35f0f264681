package plinthtest

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// checkFormat says why s is not a value of the JSON Schema format f, ""
// when it is one or when f is a format it does not know (an annotation
// only, as JSON Schema leaves unknown formats). The formats and their
// grammars: date-time, date and time (RFC 3339, leap seconds included),
// email (RFC 5321's dot-atom or quoted local part, at a host name or an
// address literal), hostname (RFC 1123), ipv4 (dotted decimal, no leading
// zeros), ipv6 (RFC 4291, no zone), uri (absolute, RFC 3986),
// uri-reference, and uuid (RFC 9562's 8-4-4-4-12 hexadecimal form).
func checkFormat(f, s string) string {
	switch f {
	case "date-time":
		date, tm, ok := strings.Cut(s, "T")
		if !ok {
			date, tm, ok = strings.Cut(s, "t")
		}
		if !ok {
			return "no T between the date and the time (RFC 3339)"
		}
		if why := checkFormat("date", date); why != "" {
			return why
		}
		return checkFormat("time", tm)
	case "date":
		if len(s) != 10 {
			return "not YYYY-MM-DD (RFC 3339)"
		}
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "not a calendar date YYYY-MM-DD (RFC 3339)"
		}
	case "time":
		return checkTime(s)
	case "email":
		return checkEmail(s)
	case "hostname":
		return checkHostname(s)
	case "ipv4":
		return checkIPv4(s)
	case "ipv6":
		a, err := netip.ParseAddr(s)
		if !strings.Contains(s, ":") || err != nil || a.Zone() != "" {
			return "not an IPv6 address without a zone"
		}
	case "uri":
		u, why := parseURI(s)
		if why != "" {
			return why
		}
		if !u.IsAbs() {
			return "a relative reference, want an absolute URI with a scheme"
		}
	case "uri-reference":
		if strings.Contains(s, `\`) {
			return `a URI reference has no \`
		}
		if _, why := parseURI(s); why != "" {
			return why
		}
	case "uuid":
		if len(s) != 36 {
			return "not 8-4-4-4-12 hexadecimal digits"
		}
		for i := 0; i < 36; i++ {
			c := s[i]
			if i == 8 || i == 13 || i == 18 || i == 23 {
				if c != '-' {
					return "not 8-4-4-4-12 hexadecimal digits"
				}
			} else if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return "not 8-4-4-4-12 hexadecimal digits"
			}
		}
	}
	return ""
}

// checkTime checks RFC 3339's full-time: hh:mm:ss, an optional fraction,
// then Z or ±hh:mm; second 60 only at 23:59 UTC (a leap second).
func checkTime(s string) string {
	const bad = "not a time hh:mm:ss[.frac](Z|±hh:mm) (RFC 3339)"
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return bad
	}
	h, ok1 := digits(s[0:2])
	m, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return bad
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		n := 0
		for n < len(frac) && frac[n] >= '0' && frac[n] <= '9' {
			n++
		}
		if n == 0 {
			return bad
		}
		rest = frac[n:]
	}
	if rest != "Z" && rest != "z" {
		if len(rest) != 6 || rest[0] != '+' && rest[0] != '-' || rest[3] != ':' {
			return bad
		}
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return bad
		}
		off := oh*60 + om
		if rest[0] == '+' {
			off = -off
		}
		hm := ((h*60+m+off)%(24*60) + 24*60) % (24 * 60)
		h, m = hm/60, hm%60
	}
	if sec == 60 && (h != 23 || m != 59) {
		return "a leap second (60) is only at 23:59 UTC"
	}
	return ""
}

// digits reads a run of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, s != ""
}

// checkEmail checks local@domain: a local part of 1 to 64 characters, a
// dot-atom or quoted string; a domain that is a host name or an address
// literal ([192.0.2.1], [IPv6:2001:db8::1]); at most 254 characters.
func checkEmail(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return "no @"
	}
	local, domain := s[:at], s[at+1:]
	switch {
	case len(s) > 254:
		return "longer than 254 characters"
	case local == "":
		return "an empty local part before the @"
	case len(local) > 64:
		return "a local part longer than 64 characters"
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return `a quoted local part with \ or "`
		}
	} else {
		if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
			return "a local part with a dot at an end or two dots in a row"
		}
		for _, c := range local {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", c)) {
				return "the local part has " + strconv.QuoteRune(c)
			}
		}
	}
	if lit, ok := strings.CutPrefix(domain, "["); ok && strings.HasSuffix(lit, "]") {
		lit = lit[:len(lit)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			if why := checkFormat("ipv6", v6); why != "" {
				return "an address literal that is " + why
			}
			return ""
		}
		if why := checkIPv4(lit); why != "" {
			return "an address literal that is " + why
		}
		return ""
	}
	if why := checkHostname(domain); why != "" {
		return "the domain is " + why
	}
	return ""
}

// checkHostname checks an RFC 1123 host name: labels of 1 to 63 letters,
// digits and hyphens, no hyphen at an end, at most 253 characters (a final
// dot aside).
func checkHostname(s string) string {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return "a host name longer than 253 characters"
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "not a host name (labels of 1 to 63 letters, digits, hyphens)"
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return "not a host name (labels of 1 to 63 letters, digits, hyphens)"
			}
		}
	}
	return ""
}

// checkIPv4 checks four decimals 0 to 255 without leading zeros.
func checkIPv4(s string) string {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return "not an IPv4 address (four decimals)"
	}
	for _, p := range parts {
		n, ok := digits(p)
		if !ok || len(p) > 3 || n > 255 || len(p) > 1 && p[0] == '0' {
			return "not an IPv4 address (four decimals 0 to 255, no leading zeros)"
		}
	}
	return ""
}

// parseURI parses a URI reference, with an IPv6 host only in brackets.
func parseURI(s string) (*url.URL, string) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, "not a URI: " + err.Error()
	}
	if h := u.Hostname(); strings.Contains(h, ":") {
		if !strings.Contains(u.Host, "[") {
			return nil, "an IPv6 host not in brackets"
		}
		if why := checkFormat("ipv6", h); why != "" {
			return nil, "a host that is " + why
		}
	}
	return u, ""
}
