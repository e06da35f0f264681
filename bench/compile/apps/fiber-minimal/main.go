// Command fiber-minimal is the compile benchmark's minimal app on fiber v2
// (fasthttp): one GET route answering a short text, GET /hello/{name}.
package main

import (
	"log"
	"os"

	"github.com/gofiber/fiber/v2"
)

func newApp() *fiber.App {
	app := fiber.New()
	app.Get("/hello/:name", hello)
	return app
}

func hello(c *fiber.Ctx) error {
	return c.SendString("Hello, " + c.Params("name") + "!\n")
}

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log.Fatal(newApp().Listen(addr))
}
