package users

import (
	"database/sql"
	"errors"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/module"
)

// UserHeader names the user a request acts for. The shop trusts it as it
// stands: a real service would take it from a verified session or token.
const UserHeader = "X-User"

// RequireUser returns a guard that lets a request through only when its
// X-User header names a user of repo: without the header it answers 401,
// with a name nobody has, 403.
func RequireUser(repo *Repo) module.Guard {
	return func(c *plinth.Ctx) error {
		name := c.Request().Header.Get(UserHeader)
		if name == "" {
			return plinth.Unauthorized("the " + UserHeader + " header must name the user")
		}
		if _, err := repo.ByName(c.Context(), name); errors.Is(err, sql.ErrNoRows) {
			return plinth.Forbidden("no user is called " + name)
		} else if err != nil {
			return err
		}
		return nil
	}
}
