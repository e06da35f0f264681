package suite

import (
	"net/http"

	"github.com/plinth-go/plinth"
)

// plinthLayered is plinth.Bare() with the core's standalone layers installed
// one by one: RequestID, Security (the four headers) and Timeout.
func plinthLayered(routes []Route) http.Handler {
	app := plinth.Bare()
	app.Use(plinth.RequestID(),
		plinth.Security(plinth.SecurityHeaders(SecurityHeaderSet())),
		plinth.Timeout(HandlerTimeout))
	return plinthApp(app, routes)
}
