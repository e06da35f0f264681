package bench

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// newEcho is echo.New() with no middleware (echo answers 405 by default).
func newEcho(routes []Route) http.Handler {
	e := echo.New()
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
	return e
}
