// Command plinth is Plinth's command-line tool: it writes new projects from
// templates, lists an application's routes and OpenAPI document without
// serving it, runs a development loop that rebuilds and restarts on
// changes, and prints its version.
//
//	plinth new PATH [--template minimal|api|web|modular] [--module PATH] [--replace DIR]
//	plinth routes [--json] [PKG]
//	plinth openapi [PKG]
//	plinth jobs [--json] [--pkg PKG] list|failed|show ID|retry ID|cancel ID
//	plinth dev [PKG]
//	plinth version
//
// It lives in Plinth's core module and uses the standard library only, so
// that
//
//	go install github.com/plinth-go/plinth/cmd/plinth@vX
//
// installs the CLI of exactly the framework release vX: the version that
// `plinth version` prints, and that `plinth new` requires in a new project's
// go.mod, is the module version the binary was built from
// (runtime/debug.ReadBuildInfo). A tool in a module of its own could drift
// from the framework it generates code for.
//
// Exit codes: 0 on success, 1 when a command fails (a build error, a
// program that exits badly), 2 for a usage error (an unknown command or
// flag, a missing argument, an unknown template, an invalid module path, a
// directory that is not empty). See docs/cli.md.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
