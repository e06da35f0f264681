//go:build !plinth_inspect

package plinth

import "os"

// inspect is the normal build's: PLINTH_INSPECT is ignored, with a
// warning, and the App serves. Only a binary built with -tags
// plinth_inspect (as `plinth routes` and `plinth openapi` build it)
// describes itself and exits.
func (a *App) inspect(cfg Config) error {
	if mode := os.Getenv(inspectEnv); mode != "" {
		a.logger(cfg).Warn("plinth: "+inspectEnv+" is set but this binary was built without -tags plinth_inspect: ignored, serving (plinth routes and plinth openapi build with the tag)",
			"variable", inspectEnv, "value", mode)
	}
	return nil
}
