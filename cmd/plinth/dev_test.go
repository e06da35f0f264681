package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// plinth dev on a generated project: an edited handler is served after the
// rebuild; a build error is reported once while the old process keeps
// serving; fixing it serves again; stopping the loop stops the program.
func TestDev(t *testing.T) {
	slow(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "devapp")
	penv := projectEnv()
	if stdout, stderr, code := cli(&environment{env: penv}, "new", dir, "--replace", checkout(t)); code != 0 {
		t.Fatalf("plinth new: exit %d\n%s%s", code, stdout, stderr)
	}
	addr := freeAddr(t)
	var out, errOut syncbuf.Buffer
	env := &environment{stdout: &out, stderr: &errOut, dir: dir, env: projectEnv("PLINTH_ADDR=" + addr)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- devLoop(ctx, env, ".") }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("devLoop: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("devLoop did not stop within 30s of its context's end")
		}
		if code, _ := fetch("GET", "http://"+addr+"/hello/dev", "", nil); code != 0 {
			t.Errorf("the program still answers after plinth dev stopped: %d", code)
		}
	}()

	url := "http://" + addr + "/hello/dev"
	serves := func(want string) func() bool {
		return func() bool { _, body := fetch("GET", url, "", nil); return strings.Contains(body, want) }
	}
	const wait = 60 * time.Second
	if !eventually(wait, serves("Hello, dev!")) {
		t.Fatalf("the first build was not served within %v\n%s", wait, errOut.String())
	}

	handlers := filepath.Join(dir, "handlers.go")
	src, err := os.ReadFile(handlers)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(s string) {
		t.Helper()
		if err := os.WriteFile(handlers, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edited := strings.Replace(string(src), `"Hello, "`, `"Howdy there, "`, 1)
	edit(edited)
	if !eventually(wait, serves("Howdy there, dev!")) {
		t.Fatalf("the edited handler was not served within %v\n%s", wait, errOut.String())
	}

	// A build error: reported once, the old process still serving.
	edit(edited + "\nfunc broken() { undefinedName() }\n")
	failed := func() bool { return strings.Contains(errOut.String(), "build failed") }
	if !eventually(wait, failed) {
		t.Fatalf("no build failure reported within %v\n%s", wait, errOut.String())
	}
	time.Sleep(4 * devPoll) // polls without a change: nothing new is printed
	if n := strings.Count(errOut.String(), "build failed"); n != 1 {
		t.Errorf("the build failure was reported %d times\n%s", n, errOut.String())
	}
	if !strings.Contains(errOut.String(), "undefinedName") {
		t.Errorf("the compiler's message was not printed\n%s", errOut.String())
	}
	if !serves("Howdy there, dev!")() {
		t.Errorf("the previous build stopped serving after a failed build")
	}

	edit(string(src))
	if !eventually(wait, serves("Hello, dev!")) {
		t.Fatalf("the fixed handler was not served within %v\n%s", wait, errOut.String())
	}
	if n := strings.Count(errOut.String(), "plinth: stopped"); n < 2 {
		t.Errorf("the old processes were not drained (%d clean stops logged)\n%s", n, errOut.String())
	}
}

// Changes are noticed for sources, templates and static files, not for
// tests, hidden files or the database.
func TestWatched(t *testing.T) {
	for name, want := range map[string]bool{
		"main.go": true, "go.mod": true, "go.sum": true, "index.html": true, "page.tmpl": true, "app.css": true,
		"app.js": true, "0001_init.sql": true, "main_test.go": false, "data.db": false, ".env": false, "app": false,
	} {
		if got := watched(name); got != want {
			t.Errorf("watched(%q) = %v, want %v", name, got, want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "x.go"), nil, 0o644)
	os.MkdirAll(filepath.Join(dir, "static"), 0o755)
	os.WriteFile(filepath.Join(dir, "static", "app.css"), nil, 0o644)
	a := snapshot(dir)
	if len(a) != 2 {
		t.Errorf("snapshot: %v", a)
	}
	os.WriteFile(filepath.Join(dir, "static", "app.css"), []byte("body{}"), 0o644)
	os.Remove(filepath.Join(dir, "main.go"))
	if d := diff(a, snapshot(dir)); len(d) != 2 {
		t.Errorf("diff: %v", d)
	}
}
