// Package platform is what every module of the shop shares: the database
// handle and the logger, provided by one module that the others import,
// and the timing middleware they put around their routes.
package platform

import (
	"database/sql"
	"log/slog"

	"github.com/plinth-go/plinth/module"
)

// Module returns a new module named "platform" that provides and exports
// db and log. A module is mounted once: build a fresh one per App.
func Module(db *sql.DB, log *slog.Logger) *module.Module {
	m := module.New("platform")
	module.Value(m, db)
	module.Value(m, log)
	module.Export[*sql.DB](m)
	module.Export[*slog.Logger](m)
	return m
}
