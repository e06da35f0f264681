package main

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/requestid"
	"github.com/gofiber/fiber/v2/middleware/timeout"
	"github.com/plinth-go/plinth/bench/internal/suite"
)

// newFiber serves sc with fiber v2 and its defaults, the same handlers as
// the other frameworks; for the middleware scenarios, its requestid
// middleware, a header middleware and timeout.NewWithContext around each
// handler (fiber's idiomatic form: its timeout wraps a handler).
func newFiber(sc suite.Scenario) (app *fiber.App, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("fiber: registering routes: %v", p)
		}
	}()
	app = fiber.New(fiber.Config{DisableStartupMessage: true})
	secured := sc.Stack != suite.StackNone
	if secured {
		headers := suite.SecurityHeaderSet()
		app.Use(requestid.New(), func(c *fiber.Ctx) error {
			for k, v := range headers {
				c.Set(k, v)
			}
			return c.Next()
		})
	}
	for _, rt := range sc.Routes {
		var h fiber.Handler
		switch rt.Kind {
		case suite.KindHello:
			h = func(c *fiber.Ctx) error {
				c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
				return c.SendString(suite.Hello)
			}
		case suite.KindAccount:
			h = func(c *fiber.Ctx) error {
				id, err := strconv.Atoi(c.Params("id"))
				if err != nil {
					return c.Status(http.StatusBadRequest).SendString(suite.InvalidID)
				}
				acct := suite.NewAccount(id)
				return c.JSON(&acct)
			}
		default:
			body := rt.Body
			h = func(c *fiber.Ctx) error { return c.Send(body) }
		}
		if secured {
			h = timeout.NewWithContext(h, suite.HandlerTimeout)
		}
		app.Add(rt.Method, suite.EchoPath(rt.Path), h)
	}
	return app, nil
}
