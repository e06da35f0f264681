package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are argon2id's cost parameters. The zero value means the
// defaults, DefaultPasswordParams.
type PasswordParams struct {
	// Memory in KiB; 0 means 19456 (19 MiB).
	Memory uint32
	// Time is the number of passes; 0 means 2.
	Time uint32
	// Threads is the parallelism; 0 means 1.
	Threads uint8
}

// The defaults of PasswordParams, OWASP's Password Storage Cheat Sheet
// recommendation for argon2id (m=19 MiB, t=2, p=1): one core and 19 MiB per
// hash keeps a burst of sign-ins from exhausting memory (a hundred at once
// need 1.9 GiB) while costing an attacker with GPUs about as much per guess
// as the other recommended settings. The time per hash is measured in
// docs/web.md ("Authentication", with its command).
const (
	DefaultPasswordMemory  = 19 * 1024
	DefaultPasswordTime    = 2
	DefaultPasswordThreads = 1
)

const (
	passwordSaltLen = 16
	passwordKeyLen  = 32
)

func (p PasswordParams) withDefaults() PasswordParams {
	if p.Memory == 0 {
		p.Memory = DefaultPasswordMemory
	}
	if p.Time == 0 {
		p.Time = DefaultPasswordTime
	}
	if p.Threads == 0 {
		p.Threads = DefaultPasswordThreads
	}
	return p
}

// HashPassword returns password hashed with argon2id and the default
// parameters, in the PHC string format
// ($argon2id$v=19$m=19456,t=2,p=1$salt$hash, salt and hash in unpadded
// base64) that CheckPassword and other argon2 libraries read.
func HashPassword(password string) (string, error) {
	return PasswordParams{}.Hash(password)
}

// Hash returns password hashed with argon2id and p, with a 16-byte random
// salt, in the PHC string format.
func (p PasswordParams) Hash(password string) (string, error) {
	p = p.withDefaults()
	salt := make([]byte, passwordSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, passwordKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// ErrPasswordHash reports a stored hash CheckPassword cannot read.
var ErrPasswordHash = errors.New("web: not an argon2id PHC string")

// CheckPassword reports whether password matches encoded, a hash from
// HashPassword, comparing in constant time. upgrade is true when it matches
// but was made with weaker parameters than the defaults (less memory, fewer
// passes or threads): hash the password again with HashPassword and store
// the new hash, so that hashes follow the defaults as they rise.
//
// Give "" as encoded for an unknown user: the check then hashes anyway and
// returns false, so that a sign-in form answers as slowly for an unknown
// email as for a wrong password and does not tell which emails exist.
func CheckPassword(encoded, password string) (ok, upgrade bool, err error) {
	if encoded == "" {
		_, _ = HashPassword(password)
		return false, false, nil
	}
	p, salt, key, err := parsePHC(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	if subtle.ConstantTimeCompare(got, key) != 1 {
		return false, false, nil
	}
	d := PasswordParams{}.withDefaults()
	return true, p.Memory < d.Memory || p.Time < d.Time || p.Threads < d.Threads, nil
}

// parsePHC reads $argon2id$v=19$m=..,t=..,p=..$salt$hash.
func parsePHC(s string) (PasswordParams, []byte, []byte, error) {
	var p PasswordParams
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, ErrPasswordHash
	}
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil {
			return p, nil, nil, ErrPasswordHash
		}
		switch k {
		case "m":
			p.Memory = uint32(n)
		case "t":
			p.Time = uint32(n)
		case "p":
			if n > 255 {
				return p, nil, nil, ErrPasswordHash
			}
			p.Threads = uint8(n)
		default:
			return p, nil, nil, ErrPasswordHash
		}
	}
	// Bounds: a hash from a database we do not control must not make us
	// spend gigabytes or hours.
	if p.Memory < 8 || p.Memory > 4<<20 || p.Time < 1 || p.Time > 100 || p.Threads < 1 {
		return p, nil, nil, ErrPasswordHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 || len(key) > 128 {
		return p, nil, nil, ErrPasswordHash
	}
	return p, salt, key, nil
}
