package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// corePath is the module path of Plinth's core, which holds this command.
const corePath = "github.com/plinth-go/plinth"

// develVersion is the version the go command gives a main module built
// from a source tree rather than from a module download.
const develVersion = "(devel)"

// buildVersion returns the version of the module this binary was built
// from: vX.Y.Z for `go install github.com/plinth-go/plinth/cmd/plinth@vX.Y.Z`,
// "(devel)" (or a +dirty VCS version) for a build from a checkout.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return develVersion
	}
	return bi.Main.Version
}

// releaseVersion reports whether v names a version that the module proxy
// can serve: not "(devel)" and not a build from a modified tree.
func releaseVersion(v string) bool {
	return strings.HasPrefix(v, "v") && !strings.HasSuffix(v, "+dirty")
}

func cmdVersion(env *environment, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments, got %s", strings.Join(args, " "))
	}
	fmt.Fprintf(env.stdout, "plinth %s (%s), %s %s/%s\n", buildVersion(), corePath, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
