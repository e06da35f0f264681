// Package apptest is the application that docs/testing.md tests: a small
// service whose App is built by one function, NewApp, that main and the
// tests share. Its tests (the _test.go files beside this one) are the
// page's examples, run by `go test ./...`.
package apptest

import (
	"context"
	"net/http"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// NewApp builds the application: main runs it with NewApp().Run(), and each
// test serves requests to a fresh one.
func NewApp() *plinth.App {
	app := plinth.New()
	app.Use(Version("1"))
	app.Get("/hello/{name}", func(c *plinth.Ctx) error {
		return c.Text(http.StatusOK, "Hello, "+c.Param("name")+"!")
	})
	app.Get("/users/{id}", func(c *plinth.Ctx) error {
		if c.Param("id") != "1" {
			return plinth.NotFound("no user " + c.Param("id"))
		}
		return c.JSON(http.StatusOK, map[string]string{"id": "1", "name": "Ada"})
	})
	app.Get("/whoami", func(c *plinth.Ctx) error {
		return c.Text(http.StatusOK, c.ClientIP().String())
	})

	a := api.New(app, api.Config{Title: "Accounts", Version: "1.0.0"})
	api.Register(a, api.Operation{Method: "POST", Path: "/accounts", Errors: []int{409}}, CreateAccount)
	return app
}

// Version is native middleware that stamps every response with the API
// version.
func Version(v string) plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			c.Header().Set("Api-Version", v)
			return next(c)
		}
	}
}

// NewAccount is the input of POST /accounts.
type NewAccount struct {
	Body struct {
		Email string `json:"email" validate:"required,format=email"`
		Plan  string `json:"plan" validate:"required,enum=free|pro"`
	}
}

// Account is an account, the output of POST /accounts.
type Account struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Plan  string `json:"plan"`
}

// CreateAccount is a typed operation: api.Register binds and validates its
// input, and sends its output as JSON with 201 Created.
func CreateAccount(ctx context.Context, in *NewAccount) (*Account, error) {
	if in.Body.Email == "taken@example.com" {
		return nil, plinth.Conflict("an account with this email exists")
	}
	return &Account{ID: "acc_1", Email: in.Body.Email, Plan: in.Body.Plan}, nil
}
