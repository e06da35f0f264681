package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// probe is one request to a generated project's running server.
type probe struct {
	method, path, body string
	header             map[string]string
	code               int
	contains           string
}

// templateTest is a template and the requests that its generated
// project, built and started, must answer.
type templateTest struct {
	template string
	env      []string // the server's variables, beyond PLINTH_ADDR and PLINTH_DATABASE_URL
	probes   []probe
}

// modularKey is the API key the modular project's server gets.
const modularKey = "probe-key-0123456789abcdef0123456789abcdef"

// templateTests has a row per template.
var templateTests = []templateTest{
	{"minimal", nil, []probe{
		{method: "GET", path: "/hello/world", code: 200, contains: "Hello, world!"},
	}},
	{"api", nil, []probe{
		{method: "POST", path: "/tasks", body: `{"title":"Write the report"}`, code: 201, contains: `"title":"Write the report"`},
		{method: "POST", path: "/tasks", body: `{"title":""}`, code: 422, contains: `"location":"body.title"`},
		{method: "GET", path: "/tasks/1", code: 200, contains: `"id":1`},
		{method: "GET", path: "/openapi.json", code: 200, contains: `"/tasks/{id}"`},
	}},
	{"modular", []string{"API_KEY=" + modularKey, "SEED_DEMO=1"}, []probe{
		{method: "GET", path: "/users", code: 200, contains: `"name":"ada"`},
		{method: "POST", path: "/notes", body: `{"text":"hi"}`, header: map[string]string{"X-User": "ada"}, code: 401, contains: "API key"},
		{method: "POST", path: "/notes", body: `{"text":"hi"}`, header: map[string]string{"Authorization": "Bearer " + modularKey}, code: 401, contains: "X-User"},
		{method: "POST", path: "/notes", body: `{"text":"hi"}`, header: map[string]string{"Authorization": "Bearer " + modularKey, "X-User": "ada"}, code: 201, contains: `"author":"ada"`},
		{method: "GET", path: "/openapi.json", code: 200, contains: `"/notes"`},
		{method: "GET", path: "/openapi.json", code: 200, contains: `"apiKey": []`},
	}},
	{"web", nil, []probe{
		{method: "GET", path: "/login", code: 200, contains: `name="csrf_token"`},
		{method: "GET", path: "/", header: map[string]string{"Accept-Language": "fr"}, code: 200, contains: `<html lang="fr">`},
		{method: "GET", path: "/account", header: map[string]string{"Accept": "text/html"}, code: 200, contains: `id="login-form"`}, // signed out: redirected to /login
	}},
}

// untestedTemplates are the templates without a row above, and why.
var untestedTemplates = map[string]string{}

// Each template, generated with --replace to this checkout: go vet, go
// test, then built, started on a free port and probed over HTTP.
func TestNewProjects(t *testing.T) {
	for _, name := range templateNames() {
		tested := slices.ContainsFunc(templateTests, func(r templateTest) bool { return r.template == name })
		if _, skip := untestedTemplates[name]; !tested && !skip {
			t.Errorf("template %s has no row in templateTests", name)
		}
	}
	slow(t)
	root := checkout(t)
	for _, tc := range templateTests {
		t.Run(tc.template, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "app-"+tc.template)
			env := &environment{env: projectEnv()}
			start := time.Now()
			modPath := "example.com/" + tc.template
			if tc.template == "minimal" {
				modPath = "shop" // no dot: go mod init accepts it, so does plinth new
			}
			stdout, stderr, code := cli(env, "new", dir, "--template", tc.template, "--replace", root, "--module", modPath)
			if code != 0 {
				t.Fatalf("plinth new: exit %d\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "go mod tidy") {
				t.Errorf("plinth new did not say that it ran go mod tidy:\n%s", stdout)
			}
			for _, f := range []string{"go.mod", "go.sum", "main.go", "README.md", "Dockerfile", ".gitignore", ".ci/run"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("no %s: %v", f, err)
				}
			}
			t.Logf("new: %v", time.Since(start).Round(time.Millisecond))

			goEnv := projectEnv()
			for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}, {"build", "-o", "app", "."}} {
				start := time.Now()
				goIn(t, dir, goEnv, args...)
				t.Logf("go %s: %v", args[0], time.Since(start).Round(time.Millisecond))
			}
			if tc.template == "api" {
				// The README's way to run plinth without installing it:
				// the version go.mod requires, from the project.
				cmd := exec.Command("go", "run", "github.com/plinth-go/plinth/cmd/plinth", "routes")
				cmd.Dir, cmd.Env = dir, projectEnv("PLINTH_DATABASE_URL=sqlite:"+filepath.Join(dir, "routes.db"))
				if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "GET     /tasks/{id}") {
					t.Errorf("go run github.com/plinth-go/plinth/cmd/plinth routes: %v\n%s", err, out)
				}
			}

			// A configuration error of several lines is printed as lines,
			// not as one quoted string with \n\t in it.
			bad := exec.Command(filepath.Join(dir, "app"))
			bad.Dir = dir
			bad.Env = projectEnv(append([]string{"PLINTH_DATABASE_URL=sqlite:" + filepath.Join(dir, "bad.db"),
				"PLINTH_MAX_BODY_BYTES=lots", "PLINTH_HANDLER_TIMEOUT=soon"}, tc.env...)...)
			badOut, err := bad.CombinedOutput()
			if err == nil || strings.Contains(string(badOut), `\n`) || strings.Count(string(badOut), "\n") < 2 ||
				!strings.Contains(string(badOut), "PLINTH_MAX_BODY_BYTES") || !strings.Contains(string(badOut), "PLINTH_HANDLER_TIMEOUT") {
				t.Errorf("a bad configuration: %v, output %q, want an error naming both variables, on lines of its own", err, badOut)
			}

			addr := freeAddr(t)
			srv := exec.Command(filepath.Join(dir, "app"))
			srv.Dir = dir
			srv.Env = projectEnv(append([]string{"PLINTH_ADDR=" + addr, "PLINTH_DATABASE_URL=sqlite:" + filepath.Join(dir, "test.db")}, tc.env...)...)
			var logs syncbuf.Buffer
			srv.Stdout, srv.Stderr = &logs, &logs
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				srv.Process.Signal(syscall.SIGTERM)
				done := make(chan error, 1)
				go func() { done <- srv.Wait() }()
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("the server did not exit cleanly on SIGTERM: %v\n%s", err, logs.String())
					}
				case <-time.After(30 * time.Second):
					srv.Process.Kill()
					t.Errorf("the server did not exit within 30s of SIGTERM\n%s", logs.String())
				}
			}()
			base := "http://" + addr
			if !eventually(30*time.Second, func() bool { code, _ := fetch("GET", base+"/livez", "", nil); return code == 200 }) {
				t.Fatalf("the server did not answer /livez within 30s\n%s", logs.String())
			}
			for _, p := range tc.probes {
				code, body := fetch(p.method, base+p.path, p.body, p.header)
				if code != p.code || !strings.Contains(body, p.contains) {
					t.Errorf("%s %s: %d %s, want %d containing %s", p.method, p.path, code, body, p.code, p.contains)
				}
			}
		})
	}
}
