package namecheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRepository: the repository's library modules follow the rules.
func TestRepository(t *testing.T) {
	mods, err := LibraryModules("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".", "data", "ws", "redisstore", "mail/smtpmail"} {
		if !slices.Contains(mods, want) {
			t.Errorf("library modules %v: %s missing", mods, want)
		}
	}
	for _, m := range mods {
		if skipped(m) {
			t.Errorf("library modules %v: %s is an application", mods, m)
		}
	}
	vs, err := CheckRepository("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Error(v)
	}
}

// header is the start of every case's Go file.
const header = "package shop\n\nimport (\n\t\"context\"\n\n\t\"github.com/plinth-go/plinth\"\n)\n\nvar _ = context.Background\nvar _ *plinth.App\n\n"

// base is a package that follows every rule; each case adds one file to it.
const base = header + `// Config configures New.
type Config struct{ Size int }

// Shop is what New makes.
type Shop struct{}

// Store is what a shop keeps things in, any implementation.
type Store interface{ Get(key string) string }

// EnqueueOpts are the options of one Enqueue.
type EnqueueOpts struct{ Queue string }

// New returns a Shop.
func New(cfg Config) *Shop { return &Shop{} }

// NewShop returns a Shop on store.
func NewShop(store Store, cfg Config) *Shop { return &Shop{} }

// Attach installs s on app.
func (s *Shop) Attach(app *plinth.App) {}

// Attach installs store on app.
func Attach(app *plinth.App, store Store) {}

// Enqueue enqueues name with opts (nil: the defaults).
func (s *Shop) Enqueue(ctx context.Context, name string, opts *EnqueueOpts) error { return nil }

// Group calls each fn with a group: callbacks, not options.
func (s *Shop) Group(prefix string, fn ...func(*Shop)) *Shop { return s }

// The sizes.
const (
	Small = 1
	Large = 2
)

// Err is an error.
type Err struct{}

func (Err) Error() string { return "err" }
func (Err) Unwrap() error { return nil }

// Newline is not a constructor: its parameters are free.
func Newline(cfg *Config, n int) {}
`

// TestRules: each rule fails on a package that breaks it, and only that
// rule; the base package, and what the check leaves out, pass.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dir   string // the package's directory, below the module; default "shop"
		file  string // a file added to the base package (or the only file, for dir)
		want  []string
		count int // violations expected; default 1
	}{
		{name: "base", want: nil, count: 0},
		{name: "package named unlike its directory", dir: "shop/redis", file: strings.Replace(base, "package shop", "package redisshop", 1), want: []string{"dir"}},
		{name: "a functional option added to a config", file: header + "// Option configures New.\ntype Option func(*Config)\n", want: []string{"option-type"}},
		{name: "an option's constructor", file: header + "// WithSize sets Config.Size.\nfunc WithSize(n int) func(*Config) { return nil }\n", want: []string{"option-func"}},
		{name: "an option's constructor returning another package's option", file: header + "// WithQueue sets the queue.\nfunc WithQueue(q string) jobs.Option { return nil }\n", want: []string{"option-func"}},
		{name: "variadic options on a constructor", file: header + "// NewStore returns a Store.\nfunc NewStore(fns ...func(*Config)) Store { return nil }\n", want: []string{"option-param"}},
		{name: "variadic Option on a method", file: header + "// Put puts.\nfunc (s *Shop) Put(ctx context.Context, opts ...jobs.Option) {}\n", want: []string{"option-param"}},
		{name: "an Options type", file: header + "// MemoryOptions configure NewMemory.\ntype MemoryOptions struct{ Max int }\n", want: []string{"options-type"}},
		{name: "New's Config not last", file: header + "// NewCart returns a cart.\nfunc NewCart(cfg Config, name string) *Shop { return nil }\n", want: []string{"new-config"}},
		{name: "New's Config by pointer", file: header + "// NewBasket returns a basket.\nfunc NewBasket(cfg *Config) *Shop { return nil }\n", want: []string{"new-config"}},
		{name: "Attach returning a result and taking a config", dir: "mail", file: strings.Replace(header, "package shop", "package mail", 1) + "// Config configures Attach.\ntype Config struct{}\n\n// Mailer sends.\ntype Mailer interface{ Send() }\n\n// Attach opens and installs.\nfunc Attach(app *plinth.App, cfg Config) (Mailer, error) { return nil, nil }\n", want: []string{"attach"}, count: 2},
		{name: "Attach method with a second parameter", dir: "jobs", file: strings.Replace(header, "package shop", "package jobs", 1) + "// Client runs jobs.\ntype Client struct{}\n\n// Config configures Attach.\ntype Config struct{}\n\n// Attach installs c.\nfunc (c *Client) Attach(app *plinth.App, cfg Config) {}\n", want: []string{"attach"}},
		{name: "package Attach of a concrete thing", dir: "data", file: strings.Replace(header, "package shop", "package data", 1) + "// DB is a database.\ntype DB struct{}\n\n// Attach installs db.\nfunc Attach(app *plinth.App, db *DB) {}\n", want: []string{"attach"}},
		{name: "Attach on something else than an App", file: header + "// Cart is a cart.\ntype Cart struct{}\n\n// Attach installs c.\nfunc (c *Cart) Attach(mux any) {}\n", want: []string{"attach"}},
		{name: "an undocumented function", file: header + "func Checkout() {}\n", want: []string{"doc"}},
		{name: "an undocumented method, constant and type", file: header + "type Cart struct{}\n\nfunc (Cart) Total() int { return 0 }\n\nconst Max = 3\n", want: []string{"doc"}, count: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, "go.work", "go 1.26.0\n\nuse (\n\t.\n\t./examples/app\n)\n")
			write(t, root, "go.mod", "module example.com/lib\n\ngo 1.26.0\n")
			dir := tc.dir
			if dir == "" {
				dir = "shop"
			}
			if tc.dir == "" {
				write(t, root, "shop/shop.go", base)
			}
			if tc.file != "" && tc.name != "base" {
				write(t, root, dir+"/case.go", tc.file)
			}
			vs, err := CheckRepository(root)
			if err != nil {
				t.Fatal(err)
			}
			count := tc.count
			if count == 0 && tc.want != nil {
				count = 1
			}
			var rules []string
			for _, v := range vs {
				if !slices.Contains(rules, v.Rule) {
					rules = append(rules, v.Rule)
				}
			}
			if len(vs) != count || !slices.Equal(rules, tc.want) {
				t.Errorf("violations %q, want %d of rules %q", vs, count, tc.want)
			}
		})
	}
}

// TestLeftOut: applications (examples/, bench/, cmd/), internal packages
// (but for the directory rule), package main, test files and testdata are
// not checked.
func TestLeftOut(t *testing.T) {
	root := t.TempDir()
	bad := header + "// Options configure New.\ntype Options struct{}\n\nfunc Undocumented() {}\n"
	write(t, root, "go.work", "go 1.26.0\n\nuse (\n\t.\n\t./examples/app\n\t./bench\n)\n")
	write(t, root, "go.mod", "module example.com/lib\n\ngo 1.26.0\n")
	write(t, root, "examples/app/go.mod", "module example.com/lib/examples/app\n\ngo 1.26.0\n")
	write(t, root, "examples/app/shop/x.go", bad)
	write(t, root, "bench/go.mod", "module example.com/lib/bench\n\ngo 1.26.0\n")
	write(t, root, "bench/shop/x.go", bad)
	write(t, root, "cmd/shop/x.go", bad)
	write(t, root, "internal/shop/x.go", bad)
	write(t, root, "tool/x.go", strings.Replace(bad, "package shop", "package main", 1))
	write(t, root, "shop/x_test.go", bad)
	write(t, root, "shop/testdata/x.go", bad)
	write(t, root, "internal/other/x.go", bad) // package shop in internal/other: the directory rule holds
	vs, err := CheckRepository(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Rule != "dir" || vs[0].Pos != "internal/other/x.go:1" {
		t.Errorf("violations %q, want the directory rule on internal/other/x.go only", vs)
	}
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
