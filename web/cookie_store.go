package web

import (
	"context"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// CookieKeySize is the size of a cookie store key: 32 bytes (256 bits).
const CookieKeySize = chacha20poly1305.KeySize

// CookieStoreConfig configures NewCookieStore.
type CookieStoreConfig struct {
	// Keys seal and open the cookies, CookieKeySize (32) random bytes each.
	// The first key seals; every key opens. To rotate, put a new key first
	// and keep the old one until the sessions it sealed have expired
	// (SessionsConfig.Lifetime), then remove it. At least one is required.
	Keys [][]byte
}

// CookieStore keeps the whole session in its cookie, sealed with
// XChaCha20-Poly1305 (an AEAD from golang.org/x/crypto, with random 192-bit
// nonces that never need coordinating between instances): the client can
// neither read nor change it, and any instance holding the keys opens it.
// Nothing is kept on the server, so nothing needs sharing, and nothing can
// be revoked: Destroy expires the browser's cookie, but a copy taken
// earlier stays valid until the session's own idle or absolute expiry. Use
// a server-side store where signing out must end every copy.
//
// A session sealed into more than MaxCookieSize (4096) bytes is not saved:
// the request fails with a 500 whose logged cause is a
// *CookieTooLargeError. The sealed value is about 4/3 of the encoded session
// plus 54 bytes.
//
// A CookieStore is a Store only so that it can be given as
// SessionsConfig.Store: Sessions never call its Load, Create, Update and
// Delete, which do nothing.
type CookieStore struct {
	aeads []cipher.AEAD
}

// NewCookieStore returns a CookieStore sealing with cfg.Keys[0]. Keys are
// data (read from the environment or a secret store), so a missing key or
// one that is not CookieKeySize bytes is an error naming it, not a panic.
func NewCookieStore(cfg CookieStoreConfig) (*CookieStore, error) {
	if len(cfg.Keys) == 0 {
		return nil, errors.New("web: CookieStoreConfig.Keys is empty: the cookie store needs at least one 32-byte key")
	}
	s := &CookieStore{}
	for i, k := range cfg.Keys {
		a, err := chacha20poly1305.NewX(k)
		if err != nil {
			return nil, errors.New("web: CookieStoreConfig.Keys[" + strconv.Itoa(i) + "]: want " + strconv.Itoa(CookieKeySize) + " bytes, got " + strconv.Itoa(len(k)))
		}
		s.aeads = append(s.aeads, a)
	}
	return s, nil
}

var errCookieOpen = errors.New("web: session cookie does not open")

// seal encrypts plain under the first key, bound to the cookie's name, and
// returns it in unpadded base64url.
func (s *CookieStore) seal(name string, plain []byte) (string, error) {
	a := s.aeads[0]
	ns := a.NonceSize()
	out := make([]byte, ns, ns+len(plain)+a.Overhead())
	if _, err := rand.Read(out); err != nil {
		return "", err
	}
	out = a.Seal(out, out[:ns], plain, []byte(name))
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// open decodes and decrypts value into buf, trying every key; it returns
// the grown buf and the plaintext (a part of it). The value is copied into
// buf before it is decoded (the decoder reads a []byte), so that a string
// conversion does not allocate.
func (s *CookieStore) open(buf []byte, name, value string) ([]byte, []byte, error) {
	n := base64.RawURLEncoding.DecodedLen(len(value))
	if n < chacha20poly1305.NonceSizeX+chacha20poly1305.Overhead || len(value) > MaxCookieSize {
		return buf, nil, errCookieOpen
	}
	// buf: [0, n) the decoded cookie, then the encoded value, which the
	// plaintext (shorter than n) overwrites once it is decoded.
	size := n + max(len(value), n) + len(name)
	if cap(buf) < size {
		buf = make([]byte, 0, size)
	}
	buf = buf[:size]
	raw, src := buf[:n], buf[n:n+len(value)]
	copy(src, value)
	ad := buf[size-len(name):]
	copy(ad, name)
	if _, err := base64.RawURLEncoding.Decode(raw, src); err != nil {
		return buf, nil, errCookieOpen
	}
	nonce, sealed := raw[:chacha20poly1305.NonceSizeX], raw[chacha20poly1305.NonceSizeX:]
	for _, a := range s.aeads {
		plain, err := a.Open(buf[n:n], nonce, sealed, ad)
		if err == nil {
			return buf, plain, nil
		}
	}
	return buf, nil, errCookieOpen
}

// Load does nothing: sessions in the cookie store live in the cookie.
func (s *CookieStore) Load(context.Context, string) ([]byte, error) { return nil, nil }

// Create does nothing: sessions in the cookie store live in the cookie.
func (s *CookieStore) Create(context.Context, string, []byte, time.Time) error { return nil }

// Update does nothing: sessions in the cookie store live in the cookie.
func (s *CookieStore) Update(context.Context, string, []byte, time.Time) (bool, error) {
	return true, nil
}

// String describes the store for the sessions' start-up log line.
func (s *CookieStore) String() string { return "cookie keys=" + strconv.Itoa(len(s.aeads)) }

// Delete does nothing: sessions in the cookie store live in the cookie.
func (s *CookieStore) Delete(context.Context, string) error { return nil }

// Ping always succeeds: there is no server to reach.
func (s *CookieStore) Ping(context.Context) error { return nil }
