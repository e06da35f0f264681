// Command upgradeapp is the App that the in-place upgrade tests build and
// run (server_upgrade_test.go): GET /version answers its version (set with
// -ldflags "-X main.version=...") and PID; GET /slow sleeps 50ms first, so
// that some requests are in flight at every drain.
package main

import (
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
)

var version = "v1"

func main() {
	app := plinth.New()
	app.Logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	pid := strconv.Itoa(os.Getpid())
	app.Get("/version", func(c *plinth.Ctx) error {
		return c.Text(200, version+" "+pid)
	})
	app.Get("/slow", func(c *plinth.Ctx) error {
		time.Sleep(50 * time.Millisecond)
		return c.Text(200, version+" "+pid)
	})
	if err := app.Run(); err != nil {
		app.Logger.Error("run", "error", err.Error())
		os.Exit(1)
	}
}
