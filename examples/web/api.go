package main

import (
	"net/http"
	"os"

	"github.com/plinth-go/plinth"
)

// version is the build's version, set with -ldflags "-X main.version=v2"
// (the scale-out rehearsal builds two, to see a rolling upgrade land).
var version = "dev"

// apiVersion answers {"version", "pid"}: which build, in which process,
// served the request.
func apiVersion(c *plinth.Ctx) error {
	return c.JSON(http.StatusOK, struct {
		Version string `json:"version"`
		PID     int    `json:"pid"`
	}{version, os.Getpid()})
}

// apiMe answers the signed-in user as JSON; RequireUser answers 401 to
// others.
func (s *site) apiMe(c *plinth.Ctx) error {
	user, _, err := s.auth.User(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		ID    string `json:"id"`
		Email string `json:"email"`
		Name  string `json:"name"`
	}{user.ID, user.Email, user.Name})
}
