package httpsyntax

import (
	"strings"
	"testing"
)

// TestTokenChars checks the tchar mask against RFC 9110's grammar, byte by
// byte: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
func TestTokenChars(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		want := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
		if got := IsTokenByte(b); got != want {
			t.Errorf("IsTokenByte(%#x) = %v, want %v", c, got, want)
		}
		// The same set, defined the other way: visible ASCII but the
		// delimiters.
		if other := 0x21 <= c && c <= 0x7e && strings.IndexByte(`"(),/:;<=>?@[\]{}`, b) < 0; other != want {
			t.Errorf("%#x: the two definitions of tchar disagree", c)
		}
	}
}

func TestTrimOWS(t *testing.T) {
	for in, want := range map[string]string{
		"": "", " ": "", "\t a b \t": "a b", "a": "a", "\na\r": "\na\r", " \t\t x": "x",
	} {
		if got := TrimOWS(in); got != want {
			t.Errorf("TrimOWS(%q) = %q, want %q", in, got, want)
		}
	}
}
