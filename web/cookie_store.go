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
// SessionsConfig.Store: Sessions never call its Load, Save and Delete,
// which do nothing.
type CookieStore struct {
	aeads []cipher.AEAD
}

// NewCookieStore returns a CookieStore sealing with cfg.Keys[0]. It panics
// without keys or with a key that is not CookieKeySize bytes.
func NewCookieStore(cfg CookieStoreConfig) *CookieStore {
	if len(cfg.Keys) == 0 {
		panic("web: CookieStoreConfig.Keys is empty: the cookie store needs at least one 32-byte key")
	}
	s := &CookieStore{}
	for i, k := range cfg.Keys {
		a, err := chacha20poly1305.NewX(k)
		if err != nil {
			panic("web: CookieStoreConfig.Keys[" + strconv.Itoa(i) + "]: want " + strconv.Itoa(CookieKeySize) + " bytes, got " + strconv.Itoa(len(k)))
		}
		s.aeads = append(s.aeads, a)
	}
	return s
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
// the grown buf and the plaintext (a part of it).
func (s *CookieStore) open(buf []byte, name, value string) ([]byte, []byte, error) {
	n := base64.RawURLEncoding.DecodedLen(len(value))
	if n < chacha20poly1305.NonceSizeX+chacha20poly1305.Overhead || len(value) > MaxCookieSize {
		return buf, nil, errCookieOpen
	}
	if cap(buf) < 2*n {
		buf = make([]byte, 0, 2*n)
	}
	raw := buf[:n]
	if _, err := base64.RawURLEncoding.Decode(raw, stringBytes(value)); err != nil {
		return buf, nil, errCookieOpen
	}
	nonce, sealed := raw[:chacha20poly1305.NonceSizeX], raw[chacha20poly1305.NonceSizeX:]
	for _, a := range s.aeads {
		plain, err := a.Open(buf[n:n], nonce, sealed, stringBytes(name))
		if err == nil {
			return buf, plain, nil
		}
	}
	return buf, nil, errCookieOpen
}

// Load does nothing: sessions in the cookie store live in the cookie.
func (s *CookieStore) Load(context.Context, string) ([]byte, error) { return nil, nil }

// Save does nothing: sessions in the cookie store live in the cookie.
func (s *CookieStore) Save(context.Context, string, []byte, time.Time) error { return nil }

// Delete does nothing: sessions in the cookie store live in the cookie.
func (s *CookieStore) Delete(context.Context, string) error { return nil }

// Ping always succeeds: there is no server to reach.
func (s *CookieStore) Ping(context.Context) error { return nil }
