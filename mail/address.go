package mail

import (
	"errors"
	"fmt"
	"net/mail"
	"net/netip"
	"strings"
)

// RFC 5321's limits (section 4.5.3.1) on an envelope address.
const (
	maxLocalPart = 64  // octets of a local part, quotes included
	maxDomain    = 255 // octets of a domain
	maxMailbox   = 254 // octets of a mailbox: a path is at most 256 with its angle brackets
)

// envelopeAddress returns a parsed address in the form an SMTP path
// carries (RFC 5321 section 4.1.2, Mailbox = Local-part "@" ( Domain /
// address-literal )), or an error saying why it cannot be carried.
//
// net/mail decodes a quoted local part: the address
// "attacker@evil.example> ORCPT=rfc822;x"@corp.example comes out as
// attacker@evil.example> ORCPT=rfc822;x@corp.example, which written
// between angle brackets ends the path early and adds an ORCPT parameter.
// The local part is therefore checked again here, decoded:
//
//   - a Dot-string (atext atoms joined by single dots) is written as it is;
//   - one made of atext and dots that is not a Dot-string ("john..doe",
//     ".x") is written as a Quoted-string, as RFC 5321 requires;
//   - any other character (space, '<', '>', '"', '\', '@', ',', ':', ';',
//     '(', ')', '[', ']', a control or a non-ASCII byte) is refused, quoted
//     or not: RFC 5321 allows most of them in a Quoted-string, but servers
//     and filters that cut a path at its first '>' or space are common,
//     and no real mailbox needs them.
//
// The domain is a host name of letter-digit-hyphen labels or an IPv4
// address literal ([192.0.2.1]); an internationalised domain is refused
// (write its xn-- form): SMTPUTF8 is not assumed.
func envelopeAddress(a *mail.Address) (string, error) {
	at := strings.LastIndexByte(a.Address, '@')
	if at < 0 {
		return "", errors.New("no '@'")
	}
	local, domain := a.Address[:at], a.Address[at+1:]
	wire, err := localPart(local)
	if err != nil {
		return "", err
	}
	if err := checkDomain(domain); err != nil {
		return "", err
	}
	wire += "@" + domain
	if len(wire) > maxMailbox {
		return "", fmt.Errorf("the address is %d octets, more than the %d an SMTP path carries (RFC 5321)", len(wire), maxMailbox)
	}
	return wire, nil
}

// localPart returns local (decoded) as an SMTP path writes it.
func localPart(local string) (string, error) {
	if local == "" {
		return "", errors.New("empty local part")
	}
	for i := 0; i < len(local); i++ {
		if c := local[i]; c != '.' && !atext(c) {
			return "", fmt.Errorf("local part %q holds %s, which an SMTP envelope cannot carry safely (allowed: letters, digits, dots and !#$%%&'*+-/=?^_`{|}~)", local, describe(c))
		}
	}
	wire := local
	if !dotString(local) {
		wire = `"` + local + `"` // atext and dots only: nothing to escape
	}
	if len(wire) > maxLocalPart {
		return "", fmt.Errorf("local part of %d octets, more than the %d RFC 5321 allows", len(wire), maxLocalPart)
	}
	return wire, nil
}

// checkDomain reports why domain is not an RFC 5321 Domain or
// address-literal.
func checkDomain(domain string) error {
	switch {
	case domain == "":
		return errors.New("no domain")
	case len(domain) > maxDomain:
		return fmt.Errorf("domain of %d octets, more than the %d RFC 5321 allows", len(domain), maxDomain)
	case domain[0] == '[':
		lit, ok := strings.CutSuffix(domain[1:], "]")
		if !ok {
			return fmt.Errorf("domain literal %q has no closing ']'", domain)
		}
		// net/mail reads no "IPv6:" tag, and RFC 5321 wants one: an
		// IPv6 literal cannot be written in both forms.
		if ip, err := netip.ParseAddr(lit); err == nil && ip.Is4() {
			return nil
		}
		return fmt.Errorf("domain literal %q: want an IPv4 address ([192.0.2.1])", domain)
	}
	for label := range strings.SplitSeq(domain, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("domain %q: a label is empty or longer than 63 octets", domain)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("domain %q: a label starts or ends with '-'", domain)
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !letDig(c) && c != '-' {
				if c >= 0x80 {
					return fmt.Errorf("domain %q is not ASCII: write it in its xn-- (IDNA) form", domain)
				}
				return fmt.Errorf("domain %q holds %s: want letters, digits, '-' and dots", domain, describe(c))
			}
		}
	}
	return nil
}

// dotString reports whether s is an RFC 5321 Dot-string: atext atoms
// joined by single dots (no dot first, last or doubled).
func dotString(s string) bool {
	return s != "" && s[0] != '.' && s[len(s)-1] != '.' && !strings.Contains(s, "..")
}

// atext reports whether c is an RFC 5322 atext character.
func atext(c byte) bool {
	return letDig(c) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// letDig reports whether c is an ASCII letter or digit.
func letDig(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// describe names a refused byte for an error.
func describe(c byte) string {
	switch {
	case c == ' ':
		return "a space"
	case c < ' ' || c == 0x7f:
		return fmt.Sprintf("the control byte 0x%02x", c)
	case c >= 0x80:
		return "non-ASCII text (SMTPUTF8 is not assumed)"
	}
	return fmt.Sprintf("%q", string(c))
}
