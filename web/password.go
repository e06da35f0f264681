package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth"
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
// hash, while costing an attacker with GPUs about as much per guess as the
// other recommended settings. Every hash allocates its whole Memory at once
// (19 MiB, measured by TestPasswordHashBytes), so the hashes running at a
// time are bounded by Passwords (PasswordsConfig.Slots). The time per hash
// is measured in docs/web.md ("Authentication", with its command).
const (
	DefaultPasswordMemory  = 19 * 1024
	DefaultPasswordTime    = 2
	DefaultPasswordThreads = 1
)

// The defaults of PasswordsConfig.Max, the largest parameters a stored hash
// may ask for before CheckPassword refuses it unrun: a hash read from a
// database is data, and a row saying m=4194304 (4 GiB) or t=100 must not
// make each sign-in spend gigabytes or seconds. The caps leave room above
// the defaults (19 MiB, 2 passes, 1 thread) for raising them: 64 MiB is
// RFC 9106's second recommended setting, 10 passes five times today's.
const (
	DefaultMaxPasswordMemory  = 64 * 1024
	DefaultMaxPasswordTime    = 10
	DefaultMaxPasswordThreads = 8
)

// The bounds on a stored hash's salt and key lengths, in bytes: HashPassword
// writes 16 and 32; other argon2 libraries write 8 to 64.
const (
	passwordSaltLen    = 16
	passwordKeyLen     = 32
	minPasswordSaltLen = 8
	maxPasswordSaltLen = 64
	minPasswordKeyLen  = 16
	maxPasswordKeyLen  = 64
)

// DefaultPasswordQueuePerSlot is how many checks may wait for a slot, per
// slot, when PasswordsConfig.Queue is 0: with a hash taking about 26 ms
// (docs/web.md), the last of a full queue waits under a second, so a burst
// of sign-ins is served late rather than refused, and a flood past it is
// refused at once (503) instead of piling up requests that each wait to
// hold 19 MiB. A waiting check costs its goroutine, not the hash's memory.
const DefaultPasswordQueuePerSlot = 32

// DefaultPasswordRetryAfter is the Retry-After of a refusal when
// PasswordsConfig.RetryAfter is 0: a full queue drains within a second.
const DefaultPasswordRetryAfter = time.Second

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

func (p PasswordParams) withMaxDefaults() PasswordParams {
	if p.Memory == 0 {
		p.Memory = DefaultMaxPasswordMemory
	}
	if p.Time == 0 {
		p.Time = DefaultMaxPasswordTime
	}
	if p.Threads == 0 {
		p.Threads = DefaultMaxPasswordThreads
	}
	return p
}

// PasswordsConfig configures NewPasswords. Every field's zero value is the
// default.
type PasswordsConfig struct {
	// Params are the parameters of new hashes (Hash, and the stand-in hash
	// Check computes for an unknown user); the zero value means the
	// defaults (19 MiB, 2 passes, 1 thread). They must not exceed Max.
	Params PasswordParams

	// Max caps the parameters Check accepts from a stored hash: one asking
	// for more memory, passes or threads is refused with ErrPasswordHash
	// without being run. Zero fields mean DefaultMaxPasswordMemory (64 MiB),
	// DefaultMaxPasswordTime (10) and DefaultMaxPasswordThreads (8). Salts
	// must be 8 to 64 bytes and keys 16 to 64, whatever Max says.
	Max PasswordParams

	// Slots bounds the hashes running at once; 0 means GOMAXPROCS when
	// NewPasswords runs (a hash keeps a core busy: more at once only makes
	// each slower, and each holds Params.Memory). Memory spent hashing is
	// then at most Slots times Params.Memory (Max.Memory for stored hashes
	// with other parameters), whatever the traffic.
	Slots int

	// Queue bounds the checks waiting for a slot; 0 means
	// DefaultPasswordQueuePerSlot (32) times Slots, a negative value no
	// queue. A check that finds the queue full fails at once with an error
	// that renders as a 503 problem (errors.Is(err, ErrPasswordBusy)); a
	// waiting check leaves the queue when its context ends (the client went
	// away, the handler timed out) and never starts its hash.
	Queue int

	// RetryAfter is the Retry-After that Auth's Middleware and Throttle send
	// with that 503; 0 means DefaultPasswordRetryAfter (1 s).
	RetryAfter time.Duration
}

// Passwords hashes and checks passwords with argon2id, a bounded number at a
// time. Make one with NewPasswords and share it: the bound holds across the
// goroutines using one Passwords. HashPassword and CheckPassword use one of
// the package's own, with the default configuration.
type Passwords struct {
	params     PasswordParams
	max        PasswordParams
	slots      chan struct{}
	queue      int64
	waiting    atomic.Int64
	retryAfter time.Duration

	onHash func() // test seam: called in a slot, before each hash
}

// NewPasswords returns a Passwords configured by cfg. It panics when
// cfg.Params exceed cfg.Max (Check would refuse the hashes Hash makes).
func NewPasswords(cfg PasswordsConfig) *Passwords {
	p := &Passwords{params: cfg.Params.withDefaults(), max: cfg.Max.withMaxDefaults(), retryAfter: cfg.RetryAfter}
	if p.params.Memory > p.max.Memory || p.params.Time > p.max.Time || p.params.Threads > p.max.Threads {
		panic(fmt.Sprintf("web: PasswordsConfig.Params %+v exceed PasswordsConfig.Max %+v", p.params, p.max))
	}
	n := cfg.Slots
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	p.slots = make(chan struct{}, n)
	switch {
	case cfg.Queue < 0:
		p.queue = 0
	case cfg.Queue == 0:
		p.queue = int64(DefaultPasswordQueuePerSlot * n)
	default:
		p.queue = int64(cfg.Queue)
	}
	if p.retryAfter <= 0 {
		p.retryAfter = DefaultPasswordRetryAfter
	}
	return p
}

// defaultPasswords is the Passwords of HashPassword, CheckPassword and
// PasswordParams.Hash: one per process, so that they share one bound.
var defaultPasswords = sync.OnceValue(func() *Passwords { return NewPasswords(PasswordsConfig{}) })

// ErrPasswordHash reports a stored hash CheckPassword cannot read, or will
// not run because it asks for more than PasswordsConfig.Max.
var ErrPasswordHash = errors.New("web: not an argon2id PHC string")

// ErrPasswordBusy reports a password check or hash refused because every
// slot was taken and the queue was full (PasswordsConfig.Queue). The error
// returned is a 503 *plinth.Problem wrapping it; Auth's Middleware and
// Throttle add Retry-After.
var ErrPasswordBusy = errors.New("web: too many password checks at once")

// passwordBusy is the cause of the 503 problem: ErrPasswordBusy, with the
// Retry-After to send.
type passwordBusy struct{ retryAfter time.Duration }

func (passwordBusy) Error() string        { return ErrPasswordBusy.Error() }
func (passwordBusy) Is(target error) bool { return target == ErrPasswordBusy }

// busyProblem returns the error of a refusal: a 503 problem, without a
// cause so that a flood of refusals does not flood the error log either.
func busyProblem(retryAfter time.Duration) error {
	return &busyErr{problem: plinth.Error(http.StatusServiceUnavailable, "too many password checks at once; try again shortly"),
		busy: passwordBusy{retryAfter}}
}

// busyErr is the 503 problem of a refusal; errors.Is(err, ErrPasswordBusy)
// holds and errors.As finds the *plinth.Problem.
type busyErr struct {
	problem *plinth.Problem
	busy    passwordBusy
}

func (e *busyErr) Error() string   { return e.problem.Error() }
func (e *busyErr) Unwrap() []error { return []error{e.problem, e.busy} }

// withPasswordBusy sets Retry-After when err is a refusal of a Passwords,
// and returns err.
func withPasswordBusy(c *plinth.Ctx, err error) error {
	if err == nil {
		return nil
	}
	if b, ok := errors.AsType[passwordBusy](err); ok {
		secs := int64((b.retryAfter + time.Second - 1) / time.Second)
		c.Header()["Retry-After"] = []string{strconv.FormatInt(max(secs, 1), 10)}
	}
	return err
}

// acquire waits for a slot: at once when one is free, in the queue when
// there is room, until ctx ends. release gives the slot back.
func (p *Passwords) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err // the request is gone: no hash for it
	}
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	if p.waiting.Add(1) > p.queue {
		p.waiting.Add(-1)
		return busyProblem(p.retryAfter)
	}
	defer p.waiting.Add(-1)
	select {
	case p.slots <- struct{}{}:
		// A slot and an ended context at once: select picks either; do not
		// start a hash for a request that is gone.
		if err := ctx.Err(); err != nil {
			<-p.slots
			return err
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Passwords) release() { <-p.slots }

// key runs argon2id in a slot.
func (p *Passwords) key(ctx context.Context, password string, salt []byte, params PasswordParams, keyLen uint32) ([]byte, error) {
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	defer p.release()
	if p.onHash != nil {
		p.onHash()
	}
	return argon2.IDKey([]byte(password), salt, params.Time, params.Memory, params.Threads, keyLen), nil
}

// Hash returns password hashed with argon2id and the configured parameters,
// with a 16-byte random salt, in the PHC string format
// ($argon2id$v=19$m=19456,t=2,p=1$salt$hash, salt and hash in unpadded
// base64), waiting for a slot as Check does.
func (p *Passwords) Hash(ctx context.Context, password string) (string, error) {
	return p.hash(ctx, password, p.params)
}

func (p *Passwords) hash(ctx context.Context, password string, params PasswordParams) (string, error) {
	salt := make([]byte, passwordSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key, err := p.key(ctx, password, salt, params, passwordKeyLen)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, params.Memory, params.Time, params.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Check reports whether password matches encoded, a hash from Hash,
// comparing in constant time. upgrade is true when it matches but was made
// with weaker parameters than the configured ones (less memory, fewer
// passes or threads): hash the password again and store the new hash, so
// that hashes follow the parameters as they rise.
//
// Give "" as encoded for an unknown user: the check then hashes anyway, in
// a slot like any other, and returns false, so that a sign-in form answers
// as slowly for an unknown email as for a wrong password and does not tell
// which emails exist.
//
// The hash waits for a slot (PasswordsConfig.Slots) while ctx lasts; pass
// the request's context (c.Context()), so that a request that is gone
// leaves the queue. A full queue is an error that renders as a 503 problem
// (errors.Is(err, ErrPasswordBusy)); a hash asking for more than
// PasswordsConfig.Max is ErrPasswordHash, and is not run.
func (p *Passwords) Check(ctx context.Context, encoded, password string) (ok, upgrade bool, err error) {
	if encoded == "" {
		var salt [passwordSaltLen]byte
		_, _ = rand.Read(salt[:])
		if _, err := p.key(ctx, password, salt[:], p.params, passwordKeyLen); err != nil {
			return false, false, err
		}
		return false, false, nil
	}
	params, salt, key, err := p.parse(encoded)
	if err != nil {
		return false, false, err
	}
	got, err := p.key(ctx, password, salt, params, uint32(len(key)))
	if err != nil {
		return false, false, err
	}
	if subtle.ConstantTimeCompare(got, key) != 1 {
		return false, false, nil
	}
	d := p.params
	return true, params.Memory < d.Memory || params.Time < d.Time || params.Threads < d.Threads, nil
}

// HashPassword returns password hashed with argon2id and the default
// parameters, in the PHC string format
// ($argon2id$v=19$m=19456,t=2,p=1$salt$hash, salt and hash in unpadded
// base64) that CheckPassword and other argon2 libraries read. It runs in a
// slot of the package's Passwords (NewPasswords with the default
// configuration, except for Max: see CheckPassword), waiting without a
// deadline; a handler uses Passwords.Hash with the request's context.
func HashPassword(password string) (string, error) {
	return defaultPasswords().Hash(context.Background(), password)
}

// Hash returns password hashed with argon2id and p, with a 16-byte random
// salt, in the PHC string format, in a slot of the package's Passwords as
// HashPassword. CheckPassword refuses hashes above its caps
// (DefaultMaxPasswordMemory and the others): check stronger ones with a
// Passwords whose PasswordsConfig.Max allows them.
func (p PasswordParams) Hash(password string) (string, error) {
	return defaultPasswords().hash(context.Background(), password, p.withDefaults())
}

// CheckPassword is Passwords.Check on the package's Passwords (the default
// configuration: GOMAXPROCS slots, a queue of 32 per slot, stored hashes
// capped at 64 MiB, 10 passes and 8 threads), waiting for a slot without a
// deadline of its own. A sign-in handler should prefer Passwords.Check with
// the request's context, so that a request that is gone leaves the queue.
func CheckPassword(encoded, password string) (ok, upgrade bool, err error) {
	return defaultPasswords().Check(context.Background(), encoded, password)
}

// parse reads $argon2id$v=19$m=..,t=..,p=..$salt$hash, refusing parameters
// above p.max.
func (p *Passwords) parse(s string) (PasswordParams, []byte, []byte, error) {
	var params PasswordParams
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return params, nil, nil, ErrPasswordHash
	}
	seen := 0
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil {
			return params, nil, nil, ErrPasswordHash
		}
		bit := strings.Index("mtp", k)
		if len(k) != 1 || bit < 0 || seen&(1<<bit) != 0 {
			return params, nil, nil, ErrPasswordHash // unknown or repeated
		}
		seen |= 1 << bit
		switch k {
		case "m":
			params.Memory = uint32(n)
		case "t":
			params.Time = uint32(n)
		case "p":
			if n > 255 {
				return params, nil, nil, fmt.Errorf("%w: parallelism %d over 255", ErrPasswordHash, n)
			}
			params.Threads = uint8(n)
		}
	}
	if seen != 7 || params.Time < 1 || params.Threads < 1 || params.Memory < 8*uint32(params.Threads) {
		return params, nil, nil, ErrPasswordHash
	}
	// A hash from a database we do not control must not make us spend
	// gigabytes or seconds.
	switch {
	case params.Memory > p.max.Memory:
		return params, nil, nil, fmt.Errorf("%w: memory %d KiB over the cap of %d KiB", ErrPasswordHash, params.Memory, p.max.Memory)
	case params.Time > p.max.Time:
		return params, nil, nil, fmt.Errorf("%w: %d passes over the cap of %d", ErrPasswordHash, params.Time, p.max.Time)
	case params.Threads > p.max.Threads:
		return params, nil, nil, fmt.Errorf("%w: parallelism %d over the cap of %d", ErrPasswordHash, params.Threads, p.max.Threads)
	}
	if len(parts[4]) > base64.RawStdEncoding.EncodedLen(maxPasswordSaltLen) {
		return params, nil, nil, fmt.Errorf("%w: salt longer than %d bytes", ErrPasswordHash, maxPasswordSaltLen)
	}
	if len(parts[5]) > base64.RawStdEncoding.EncodedLen(maxPasswordKeyLen) {
		return params, nil, nil, fmt.Errorf("%w: hash longer than %d bytes", ErrPasswordHash, maxPasswordKeyLen)
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < minPasswordSaltLen || len(key) < minPasswordKeyLen {
		return params, nil, nil, ErrPasswordHash
	}
	return params, salt, key, nil
}
