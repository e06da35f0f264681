package web

// Boundary tests of the cookie store's open from mutation testing:
// a value of exactly MaxCookieSize characters opens and one
// more does not; the shortest sealed value (an empty plaintext: nonce and
// tag) opens and one byte less does not. Internal: open is not exported.

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func boundCookieStore(t *testing.T) *CookieStore {
	t.Helper()
	s, err := NewCookieStore(CookieStoreConfig{Keys: [][]byte{bytes.Repeat([]byte{3}, CookieKeySize)}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCookieStoreOpenSizeLimits(t *testing.T) {
	s := boundCookieStore(t)
	const name = "session"
	// The largest plaintext whose sealed value fits MaxCookieSize.
	p := 0
	for base64.RawURLEncoding.EncodedLen(24+16+p+1) <= MaxCookieSize {
		p++
	}
	for _, c := range []struct {
		plain int
		ok    bool
	}{{0, true}, {p, true}, {p + 1, false}} {
		plain := bytes.Repeat([]byte{'x'}, c.plain)
		v, err := s.seal(name, plain)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := s.open(nil, name, v)
		if c.ok && (err != nil || !bytes.Equal(got, plain)) {
			t.Errorf("a value of %d characters (limit %d): %v", len(v), MaxCookieSize, err)
		}
		if !c.ok && err == nil {
			t.Errorf("a value of %d characters (limit %d) opened", len(v), MaxCookieSize)
		}
		// A buffer too small to start with is grown; a large one is reused.
		if c.ok {
			if _, got, err := s.open(make([]byte, 0, 1), name, v); err != nil || !bytes.Equal(got, plain) {
				t.Errorf("with a small buffer: %v", err)
			}
		}
	}
	if p+24+16 > MaxCookieSize || base64.RawURLEncoding.EncodedLen(24+16+p) > MaxCookieSize {
		t.Fatalf("bad limit computation: %d", p)
	}

	// The shortest sealed value opens; one byte shorter is refused without
	// being tried.
	v, _ := s.seal(name, nil)
	raw, _ := base64.RawURLEncoding.DecodeString(v)
	if len(raw) != 24+16 {
		t.Fatalf("an empty plaintext sealed into %d bytes", len(raw))
	}
	if _, _, err := s.open(nil, name, base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1])); err == nil {
		t.Error("a value one byte shorter than nonce and tag opened")
	}
	// Bound to the cookie's name.
	if _, _, err := s.open(nil, "other", v); err == nil {
		t.Error("a value sealed for another cookie name opened")
	}
}

// A key of the wrong size is an error naming it and both sizes.
func TestCookieStoreKeyErrors(t *testing.T) {
	_, err := NewCookieStore(CookieStoreConfig{Keys: [][]byte{bytes.Repeat([]byte{1}, CookieKeySize), make([]byte, 31)}})
	if err == nil || err.Error() != "web: CookieStoreConfig.Keys[1]: want 32 bytes, got 31" {
		t.Errorf("a 31-byte key: %v", err)
	}
	if _, err := NewCookieStore(CookieStoreConfig{}); err == nil || !strings.Contains(err.Error(), "Keys is empty") {
		t.Errorf("no key: %v", err)
	}
}

// A value far shorter than a nonce is refused before it is sliced, and the
// store describes itself by its key count.
func TestCookieStoreTinyValueAndString(t *testing.T) {
	s := boundCookieStore(t)
	for _, n := range []int{0, 1, 8, 10, 23, 24, 39} {
		v := base64.RawURLEncoding.EncodeToString(make([]byte, n))
		if _, _, err := s.open(nil, "session", v); err == nil {
			t.Errorf("a value of %d bytes opened", n)
		}
	}
	if got := s.String(); got != "cookie keys=1" {
		t.Errorf("String: %q", got)
	}
}
