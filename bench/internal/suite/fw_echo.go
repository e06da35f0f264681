package suite

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// newEcho is echo.New() with no middleware (echo answers 405 by default).
func newEcho(routes []Route) http.Handler {
	e := echo.New()
	echoRoutes(e, routes)
	return e
}

// securedEcho uses echo's middleware.RequestID, SecureWithConfig (the four
// headers only) and ContextTimeout.
func securedEcho(routes []Route, _ bool) http.Handler {
	e := echo.New()
	h := SecurityHeaderSet()
	e.Use(middleware.RequestID(),
		middleware.SecureWithConfig(middleware.SecureConfig{
			ContentTypeNosniff:    h["X-Content-Type-Options"],
			XFrameOptions:         h["X-Frame-Options"],
			ReferrerPolicy:        h["Referrer-Policy"],
			ContentSecurityPolicy: h["Content-Security-Policy"],
		}),
		middleware.ContextTimeout(HandlerTimeout))
	echoRoutes(e, routes)
	return e
}

func echoRoutes(e *echo.Echo, routes []Route) {
	for _, rt := range routes {
		var h echo.HandlerFunc
		switch rt.Kind {
		case KindHello:
			h = func(c echo.Context) error { return c.String(http.StatusOK, Hello) }
		case KindAccount:
			h = func(c echo.Context) error {
				id, err := strconv.Atoi(c.Param("id"))
				if err != nil {
					return c.String(http.StatusBadRequest, InvalidID)
				}
				acct := NewAccount(id)
				return c.JSON(http.StatusOK, &acct)
			}
		default:
			body := rt.Body
			h = func(c echo.Context) error {
				_, err := c.Response().Write(body)
				return err
			}
		}
		e.Add(rt.Method, EchoPath(rt.Path), h)
	}
}
