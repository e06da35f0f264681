package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"os"
	"strings"

	"github.com/plinth-go/plinth"
)

// adminEnv is the variable holding the operators' token: the job
// endpoints (enqueue a sleep or a unique job, read any job) and the cache
// invalidation are for operators, not for the users who sign up.
const adminEnv = "PLINTH_ADMIN_TOKEN"

// minAdminToken is the shortest token accepted: 16 characters, so that
// one cannot be guessed online (openssl rand -hex 32 makes 64).
const minAdminToken = 16

// admin guards the operators' endpoints with the bearer token of
// PLINTH_ADMIN_TOKEN.
type admin struct {
	sum [sha256.Size]byte // the token's SHA-256: compared in constant time, whatever the length sent
	set bool
}

// newAdmin reads PLINTH_ADMIN_TOKEN (declared to app). Unset, the
// guarded endpoints are disabled (403); a token shorter than
// minAdminToken or holding a space or control character stops the start,
// naming the variable.
func newAdmin(app *plinth.App) (*admin, error) {
	app.DeclareEnv(adminEnv)
	tok := os.Getenv(adminEnv)
	if tok == "" {
		return &admin{}, nil
	}
	if len(tok) < minAdminToken || strings.IndexFunc(tok, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return nil, fmt.Errorf("%s: want at least %d characters, no space or control character (openssl rand -hex 32)", adminEnv, minAdminToken)
	}
	return &admin{sum: sha256.Sum256([]byte(tok)), set: true}, nil
}

// require is the middleware of the guarded routes: with no token
// configured every request is refused (403 problem: the endpoints are
// disabled); otherwise a request without "Authorization: Bearer TOKEN",
// or with another token, is refused with a 401 problem and
// WWW-Authenticate, the same answer whether the job it names exists or
// not (job IDs are sequential: nothing to enumerate).
func (a *admin) require(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		if !a.set {
			return plinth.Forbidden("this endpoint is for operators and is disabled: set " + adminEnv +
				" and send it as Authorization: Bearer <token>")
		}
		scheme, tok, _ := strings.Cut(c.Request().Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(tok))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], a.sum[:]) != 1 {
			c.Header().Set("WWW-Authenticate", `Bearer realm="services"`)
			return plinth.Unauthorized("this endpoint is for operators: send " + adminEnv + " as Authorization: Bearer <token>")
		}
		return next(c)
	}
}
