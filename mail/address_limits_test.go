package mail_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/mail"
)

// TestEnvelopeLimits: RFC 5321's limits hold at their exact values: a
// mailbox of 254 octets, a local part of 64 (quotes included) and a label
// of 63 are accepted; one octet more is refused, naming the limit.
func TestEnvelopeLimits(t *testing.T) {
	domain := func(n int) string { // a valid domain of n octets, n >= 10
		d := strings.Repeat("abcdefghi.", (n-10)/10) + "example"
		return d + strings.Repeat("x", n-len(d))
	}
	for _, tc := range []struct {
		addr, want string // want: "" when accepted
	}{
		{strings.Repeat("x", 64) + "@" + domain(189), ""},
		{strings.Repeat("x", 64) + "@" + domain(190), "255 octets, more than the 254"},
		{`"` + strings.Repeat("x", 61) + `."@corp.example`, ""}, // quoted: 64 octets with its quotes
		{`"` + strings.Repeat("x", 62) + `."@corp.example`, "local part of 65 octets"},
		{"a@" + strings.Repeat("y", 63) + ".example", ""},
		{"a@" + strings.Repeat("y", 64) + ".example", "longer than 63 octets"},
	} {
		m := valid()
		m.To = []string{tc.addr}
		env, err := m.Envelope()
		if tc.want == "" {
			if err != nil || len(env.To) != 1 {
				t.Errorf("%s (%d octets): %v", tc.addr, len(tc.addr), err)
			}
			continue
		}
		if !errors.Is(err, mail.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", tc.addr, err, tc.want)
		}
	}
}

// TestEnvelopeCharacters: every atext character of RFC 5322, and the
// letters and digits at both ends of their ranges, are carried as they
// are, in the local part and (letters, digits, '-') in the domain.
func TestEnvelopeCharacters(t *testing.T) {
	for _, addr := range []string{
		"!#$%&'*+-/=?^_`{|}~@corp.example",
		"aA.zZ.09@az-AZ-09.example",
		"Z@Z9.example",
		"0@a0.example",
	} {
		m := valid()
		m.From = addr
		env, err := m.Envelope()
		if err != nil || env.From != addr {
			t.Errorf("%s: envelope %q, %v; want it as it is", addr, env.From, err)
		}
	}
}
