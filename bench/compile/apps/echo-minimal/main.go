// Command echo-minimal is the compile benchmark's minimal app on echo: one
// GET route answering a short text, GET /hello/{name}.
package main

import (
	"net/http"
	"os"

	"github.com/labstack/echo/v4"
)

func newApp() *echo.Echo {
	e := echo.New()
	e.GET("/hello/:name", hello)
	return e
}

func hello(c echo.Context) error {
	return c.String(http.StatusOK, "Hello, "+c.Param("name")+"!\n")
}

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	e := newApp()
	e.Logger.Fatal(e.Start(addr))
}
