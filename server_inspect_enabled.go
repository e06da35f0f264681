//go:build plinth_inspect

package plinth

import (
	"fmt"
	"os"
)

// inspect answers PLINTH_INSPECT, if set: it writes the description and
// exits the process, or returns why it cannot. Unset, it returns nil. This
// is the plinth_inspect build's (the plinth command's routes and openapi).
func (a *App) inspect(Config) error {
	mode := os.Getenv(inspectEnv)
	if mode == "" {
		return nil
	}
	out, err := a.inspection(mode)
	if err != nil {
		return err
	}
	if path := os.Getenv(inspectOutputEnv); path != "" {
		// O_EXCL: the tool names a file of its own, new; an existing file
		// is never overwritten.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = f.Write(out)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("plinth: %s=%s: %w", inspectOutputEnv, path, err)
		}
	} else if _, err := os.Stdout.Write(out); err != nil {
		return fmt.Errorf("plinth: %s=%s: %w", inspectEnv, mode, err)
	}
	os.Exit(0)
	return nil
}
