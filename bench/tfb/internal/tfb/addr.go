package tfb

import (
	"os"
	"strings"
)

// Addr is the listen address of the peers' mains: PLINTH_ADDR, as for the
// Plinth server, so that the scripts start every implementation the same
// way; default ":8080".
func Addr() string {
	if a := strings.TrimSpace(os.Getenv("PLINTH_ADDR")); a != "" {
		return a
	}
	return ":8080"
}
