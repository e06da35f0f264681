package main

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/requestid"
	"github.com/gofiber/fiber/v2/middleware/timeout"
	"github.com/plinth-go/plinth/bench"
)

// newFiber serves sc with fiber v2 and its defaults, the same handlers as
// the other frameworks; for the middleware scenarios, its requestid
// middleware, a header middleware and timeout.NewWithContext around each
// handler (fiber's idiomatic form: its timeout wraps a handler).
func newFiber(sc bench.Scenario) (app *fiber.App, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("fiber: registering routes: %v", p)
		}
	}()
	app = fiber.New(fiber.Config{DisableStartupMessage: true})
	secured := sc.Stack != bench.StackNone
	if secured {
		headers := bench.SecurityHeaderSet()
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
		case bench.KindHello:
			h = func(c *fiber.Ctx) error {
				c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
				return c.SendString(bench.Hello)
			}
		case bench.KindAccount:
			h = func(c *fiber.Ctx) error {
				id, err := strconv.Atoi(c.Params("id"))
				if err != nil {
					return c.Status(http.StatusBadRequest).SendString(bench.InvalidID)
				}
				acct := bench.NewAccount(id)
				return c.JSON(&acct)
			}
		default:
			body := rt.Body
			h = func(c *fiber.Ctx) error { return c.Send(body) }
		}
		if secured {
			h = timeout.NewWithContext(h, bench.HandlerTimeout)
		}
		app.Add(rt.Method, bench.EchoPath(rt.Path), h)
	}
	return app, nil
}
