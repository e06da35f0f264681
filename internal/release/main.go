// Command release rehearses a release of the repository's modules, as
// docs/releasing.md describes: run from the repository root,
//
//	go run ./internal/release -version v0.1.0 -proxy DIR
//
// It refuses a dirty tree, a version that is not canonical semver (or has a
// major version above 1, which would need /vN module paths) and a version
// that DIR already holds. It then writes every released module (go.work's
// modules less bench, examples and the internal ones) at that version into
// DIR, laid out as a GOPROXY directory (module/@v/list, .info, .mod, .zip,
// paths escaped as the proxy protocol says), each go.mod requiring its
// siblings at the new version and each go.sum holding their checksums. Before
// DIR is touched, it checks every module copy alone (GOWORK=off: go mod tidy
// -diff, go build ./..., go vet ./...), with the siblings served from the
// new release, and compares each module's exported API with the previous
// version found in DIR (golang.org/x/exp/apidiff): a patch release with an
// incompatible change is refused, a v0 minor release lists its incompatible
// changes. Last, it prints the git tags a real release would push. It pushes
// nothing and publishes nothing.
//
// With -tidy it writes nothing into DIR: it runs go mod tidy in each module
// copy and writes the go.mod and go.sum it needs alone back into the tree
// (its siblings required at the tree's version again, their go.sum lines
// left out: the release computes them), for a contributor whose go mod tidy
// -diff check failed.
//
// It is a module of its own, never released, so that golang.org/x/mod,
// golang.org/x/exp and golang.org/x/tools stay out of users' module graphs.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// config is what the command line says.
type config struct {
	version string // the version to release, such as v0.1.0
	proxy   string // the GOPROXY directory to write
	root    string // the repository root: go.work's directory
	tidy    bool   // write the go.mod and go.sum each module needs alone into the tree, release nothing
	log     io.Writer
}

func main() {
	cfg := config{log: os.Stdout}
	flag.StringVar(&cfg.version, "version", "", "the version to release, canonical semver such as v0.1.0 (required)")
	flag.StringVar(&cfg.proxy, "proxy", "", "the GOPROXY directory to write the release into (required; made if missing)")
	flag.StringVar(&cfg.root, "root", ".", "the repository root, where go.work is")
	flag.BoolVar(&cfg.tidy, "tidy", false, "release nothing: write into the tree the go.mod and go.sum each module needs when built alone (go mod tidy in a module of the workspace cannot)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./internal/release -version v0.1.0 -proxy DIR\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}
