package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// quickstartEnv runs the quickstart from the checkout's root on a SQLite
// database in a temp dir (it opens and migrates one before Run).
func quickstartEnv(t *testing.T) *environment {
	t.Helper()
	if _, err := os.Stat(filepath.Join(checkout(t), "examples", "quickstart")); os.IsNotExist(err) {
		t.Skip("examples/quickstart is absent (the core module outside its repository)")
	}
	return &environment{dir: checkout(t), env: append(os.Environ(), "PLINTH_DATABASE_URL=sqlite:"+filepath.Join(t.TempDir(), "q.db"))}
}

// plinth routes lists the quickstart's routes, each with the file and line
// that registered it.
func TestRoutesQuickstart(t *testing.T) {
	slow(t)
	t.Parallel()
	env := quickstartEnv(t)
	stdout, stderr, code := cli(env, "routes", "./examples/quickstart")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "METHOD") {
		t.Errorf("no header line:\n%s", stdout)
	}
	row := regexp.MustCompile(`(?m)^(GET|POST|DELETE)\s+(\S+)\s+(\S.*?)\s+(examples/quickstart/\w+\.go):(\d+)$`)
	seen := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(stdout, -1) {
		seen[m[1]+" "+m[2]] = true
		// A typed operation is named by its operation ID and its
		// handler's function, not by the api package's closure.
		if m[1]+" "+m[2] == "POST /api/tasks" && !strings.HasPrefix(m[3], "post-api-tasks (main.") {
			t.Errorf("POST /api/tasks: handler %q, want its operation ID and function", m[3])
		}
		// The source line is the registration of that route.
		src, err := os.ReadFile(filepath.Join(env.dir, m[4]))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(m[5])
		lines := strings.Split(string(src), "\n")
		if n < 1 || n > len(lines) {
			t.Errorf("%s %s: line %d out of range", m[1], m[2], n)
			continue
		}
		last := m[2][strings.LastIndex(m[2], "/")+1:]
		if line := lines[n-1]; !strings.Contains(line, last) && !strings.Contains(line, "api.New") && !strings.Contains(line, "metrics.New") {
			t.Errorf("%s %s: %s:%d is %q", m[1], m[2], m[4], n, line)
		}
	}
	for _, want := range []string{"GET /hello/{name}", "GET /api/notes/{id}", "POST /api/tasks", "DELETE /api/tasks/{id}", "GET /openapi.json"} {
		if !seen[want] {
			t.Errorf("no row for %s in:\n%s", want, stdout)
		}
	}

	stdout, stderr, code = cli(env, "routes", "--json", "./examples/quickstart")
	var routes []route
	if err := json.Unmarshal([]byte(stdout), &routes); code != 0 || err != nil || len(routes) < 10 {
		t.Errorf("routes --json: exit %d, %v, %d routes\n%s", code, err, len(routes), stderr)
	}
}

// plinth openapi prints the quickstart's OpenAPI document.
func TestOpenAPIQuickstart(t *testing.T) {
	slow(t)
	t.Parallel()
	stdout, stderr, code := cli(quickstartEnv(t), "openapi", "./examples/quickstart")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Info    struct{ Title string }     `json:"info"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") || doc.Info.Title != "Plinth quickstart" || doc.Paths["/api/tasks/{id}"] == nil || doc.Paths["/api/notes/{id}"] == nil {
		t.Errorf("document: openapi %q, title %q, %d paths", doc.OpenAPI, doc.Info.Title, len(doc.Paths))
	}
}

// A program without a document, and one that is not a Plinth App, fail
// with a message saying why.
func TestInspectFailures(t *testing.T) {
	slow(t)
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "main.go"), []byte(src), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/t\n\ngo 1.26.0\n\nrequire github.com/plinth-go/plinth v0.0.0-00010101000000-000000000000\n\nreplace github.com/plinth-go/plinth => "+checkout(t)+"\n"), 0o644)
	write("nodoc", "package main\n\nimport \"github.com/plinth-go/plinth\"\n\nfunc main() {\n\tapp := plinth.New()\n\tapp.Get(\"/\", func(c *plinth.Ctx) error { return nil })\n\tif err := app.Run(); err != nil {\n\t\tpanic(err)\n\t}\n}\n")
	write("plain", "package main\n\nfunc main() {}\n")
	write("broken", "package main\n\nfunc main() { undefined() }\n")
	env := &environment{dir: dir, env: projectEnv()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"openapi", "./nodoc"}, "no OpenAPI document"},
		{[]string{"routes", "./plain"}, "exited without describing its App"},
		{[]string{"routes", "./broken"}, "go build ./broken failed"},
	} {
		_, stderr, code := cli(env, tc.args...)
		if code != exitFailure || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want %d and %q", tc.args, code, stderr, exitFailure, tc.want)
		}
	}
	if stdout, stderr, code := cli(env, "routes", "./nodoc"); code != 0 || !strings.Contains(stdout, "GET     /") {
		t.Errorf("routes ./nodoc: exit %d\n%s%s", code, stdout, stderr)
	}
}
