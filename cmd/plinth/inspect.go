package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

const inspectUsage = `Usage: plinth %[1]s [--json] [PKG]

Builds the program in PKG (default .) with -tags plinth_inspect and runs it
with PLINTH_INSPECT=%[1]s, which makes its App.Run (or Serve) write the %[2]s
and exit before it listens or runs its OnStart hooks (a binary built
without the tag ignores the variable). The program's own output goes to
standard error.

Flags:
  --json   print the JSON as the program wrote it (routes only; openapi
           always prints JSON)
`

// inspectTimeout bounds how long the program may run before it describes
// its App: one that never calls Run or Serve would otherwise serve forever.
const inspectTimeout = 2 * time.Minute

// cmdInspect is `plinth routes` and `plinth openapi`.
func cmdInspect(env *environment, mode string, args []string) error {
	fl := flag.NewFlagSet(mode, flag.ContinueOnError)
	asJSON := fl.Bool("json", false, "")
	what := map[string]string{"routes": "route table as JSON", "openapi": "OpenAPI document"}[mode]
	fl.Usage = func() { fmt.Fprintf(fl.Output(), inspectUsage, mode, what) }
	pos, err := parseFlags(fl, args, env.stderr)
	if err != nil {
		return err
	}
	pkg, err := onePackage(mode, pos)
	if err != nil {
		return err
	}
	out, err := inspectPackage(env, mode, pkg)
	if err != nil {
		return err
	}
	if mode == "openapi" || *asJSON {
		_, err := env.stdout.Write(out)
		return err
	}
	return printRoutes(env, out)
}

// inspectPackage builds pkg, runs it with PLINTH_INSPECT=mode and returns
// what it wrote.
func inspectPackage(env *environment, mode, pkg string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "plinth-inspect-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "app")
	if err := goBuild(env, pkg, bin); err != nil {
		return nil, err
	}
	outFile := filepath.Join(tmp, "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), inspectTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = env.dir
	// PLINTH_ADDR: should the program serve after all (it does not call
	// Run or Serve), it takes no port that something else needs.
	cmd.Env = append(env.environ(), "PLINTH_INSPECT="+mode, "PLINTH_INSPECT_OUTPUT="+outFile, "PLINTH_ADDR=127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = env.stderr, env.stderr
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s did not exit within %v: it must build its App and call App.Run or App.Serve, which honour PLINTH_INSPECT", pkg, inspectTimeout)
	}
	if runErr != nil {
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return nil, fmt.Errorf("%s exited with status %d before describing its App (its output is above)", pkg, ee.ExitCode())
		}
		return nil, runErr
	}
	out, err := os.ReadFile(outFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s exited without describing its App: it must build its App and call App.Run or App.Serve, which honour PLINTH_INSPECT", pkg)
	}
	return out, err
}

// inspectTag is the build tag that turns PLINTH_INSPECT on in the core: a
// binary built without it ignores the variable and serves.
const inspectTag = "plinth_inspect"

// goBuild builds the main package pkg into bin, with the inspectTag build
// tag; a failure's messages go to stderr as the go command wrote them.
func goBuild(env *environment, pkg, bin string) error {
	cmd := exec.Command("go", "build", "-tags", inspectTag, "-o", bin, pkg)
	cmd.Env = env.environ()
	cmd.Dir = env.dir
	cmd.Stdout, cmd.Stderr = env.stderr, env.stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			fmt.Fprintf(env.stderr, "plinth: go build %s failed\n", pkg)
			return errReported
		}
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// route is one entry of PLINTH_INSPECT=routes.
type route struct {
	Method  string `json:"method"`
	Pattern string `json:"pattern"`
	Handler string `json:"handler"`
	Source  string `json:"source"`
}

// printRoutes prints the route table in data as aligned columns, sources
// relative to the working directory where that is shorter.
func printRoutes(env *environment, data []byte) error {
	var routes []route
	if err := json.Unmarshal(data, &routes); err != nil {
		return fmt.Errorf("the program's route table is not valid JSON: %v", err)
	}
	wd := env.dir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METHOD\tPATTERN\tHANDLER\tSOURCE")
	for _, r := range routes {
		method, pattern := r.Method, r.Pattern
		if method == "" {
			method = "*"
		} else {
			_, pattern, _ = strings.Cut(pattern, " ")
			pattern = strings.TrimSpace(pattern)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", method, pattern, r.Handler, relSource(wd, r.Source))
	}
	return tw.Flush()
}

// relSource returns src (file:line) with the file relative to wd when it
// is below it.
func relSource(wd, src string) string {
	if wd == "" || !filepath.IsAbs(src) {
		return src
	}
	if rel, err := filepath.Rel(wd, src); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return src
}
