package httpsyntax

// tchar is the set of RFC 9110 token characters (letters, digits and
// !#$%&'*+-.^_`|~) as a 128-bit mask: bit c of tcharLo for c < 64, bit
// c-64 of tcharHi otherwise. TestTokenChars checks it against the grammar.
const (
	tcharLo uint64 = 0x03ff6cfa00000000
	tcharHi uint64 = 0x57ffffffc7fffffe
)

// tcharTable is the same set as a table, one load per byte: the engine's
// parser checks every name and method byte with it.
var tcharTable = func() (t [256]bool) {
	for c := range 128 {
		if c < 64 {
			t[c] = tcharLo&(1<<c) != 0
		} else {
			t[c] = tcharHi&(1<<(c-64)) != 0
		}
	}
	return t
}()

// IsTokenByte reports whether c is an RFC 9110 token character (tchar).
func IsTokenByte(c byte) bool { return tcharTable[c] }

// IsToken reports whether s is an RFC 9110 token (a field name, a method,
// a coding name, a parameter name): one or more of the letters, digits and
// !#$%&'*+-.^_`|~, which is every visible ASCII character except the
// delimiters "(),/:;<=>?@[\]{}. It allocates nothing.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// TrimOWS returns s without the optional whitespace (spaces and horizontal
// tabs, RFC 9110 §5.6.3) at either end; other white space is kept.
func TrimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
