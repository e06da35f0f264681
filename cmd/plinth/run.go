package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes of the command.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line was wrong
)

const usageText = `plinth is the command-line tool of the Plinth web framework.

Usage:

	plinth new PATH [--template minimal|api|web|modular] [--module PATH] [--replace DIR]
	plinth routes [--json] [PKG]
	                        print the route table of the application in PKG (default .)
	plinth openapi [PKG]    print its OpenAPI document
	plinth jobs [--json] [--pkg PKG] list|failed|show ID|retry ID|cancel ID
	                        list, retry or cancel the application's jobs
	plinth dev [PKG]        build, run, and rebuild and restart on changes
	plinth version          print the version of plinth and of Go

Run "plinth COMMAND -h" for a command's flags. See docs/cli.md.
`

// usageError is a mistake in the command line: its message is printed and
// the command exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// run runs the command line args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runIn(&environment{stdout: stdout, stderr: stderr}, args)
}

// runIn runs the command line args in env and returns the exit status.
func runIn(env *environment, args []string) int {
	stdout, stderr := env.stdout, env.stderr
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "new":
		err = cmdNew(env, rest)
	case "routes":
		err = cmdInspect(env, "routes", rest)
	case "openapi":
		err = cmdInspect(env, "openapi", rest)
	case "jobs":
		err = cmdJobs(env, rest)
	case "dev":
		err = cmdDev(env, rest)
	case "version":
		err = cmdVersion(env, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	default:
		fmt.Fprintf(stderr, "plinth: unknown command %q\n\n%s", cmd, usageText)
		return exitUsage
	}
	return exitCode(err, stderr)
}

// exitCode prints err, if any, and returns the status it calls for.
func exitCode(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "plinth: %s\n", ue.msg)
		return exitUsage
	case errors.Is(err, errReported):
		return exitFailure
	}
	fmt.Fprintf(stderr, "plinth: %v\n", err)
	return exitFailure
}

// errReported is a failure whose explanation has been printed already.
var errReported = errors.New("failed (reported above)")

// environment is what commands write to and run with.
type environment struct {
	stdout, stderr io.Writer
	// env is the environment of the processes the commands start; nil
	// means the command's own.
	env []string
	// dir is the working directory of the processes the commands start,
	// against which package arguments are resolved; "" means the
	// command's own.
	dir string
}

// parseFlags parses args with fs, allowing flags after positional
// arguments (plinth new DIR --template api), and returns the positional
// arguments. A bad flag is a usage error; -h prints the flags and returns
// flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stderr)
				fs.Usage()
				return nil, err
			}
			return nil, usagef("%s: %v (see plinth %s -h)", fs.Name(), err, fs.Name())
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// onePackage returns the package argument of routes, openapi and dev:
// "." when there is none.
func onePackage(name string, pos []string) (string, error) {
	switch len(pos) {
	case 0:
		return ".", nil
	case 1:
		return pos[0], nil
	}
	return "", usagef("%s takes one package, got %d arguments: %s", name, len(pos), strings.Join(pos, " "))
}
