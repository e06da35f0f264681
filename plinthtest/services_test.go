package plinthtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestRequired(t *testing.T) {
	for _, c := range []struct {
		env     string
		want    bool
		wantErr bool
	}{
		{"", false, false},
		{"redis", false, false},
		{"postgres", true, false},
		{" Redis , POSTGRES ", true, false},
		{"all", true, false},
		{"postgress", false, true},
	} {
		t.Setenv(RequireEnv, c.env)
		got, err := Required("postgres")
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%s=%q: Required(postgres) = %v, %v; want %v, error %v", RequireEnv, c.env, got, err, c.want, c.wantErr)
		}
	}
}

// childEnv marks the child process that runs TestChildMissing.
const childEnv = "PLINTH_TEST_TESTENV_CHILD"

// TestChildMissing is the child's test: two tests miss postgres, one
// carries on without it, one asks for its URL.
func TestChildMissing(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestMissing in a child process")
	}
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) { Missing(t, "postgres", "set PLINTH_TEST_POSTGRES to run this test") })
	}
	t.Run("without", func(t *testing.T) { Without(t, "postgres", "set PLINTH_TEST_POSTGRES to run this test") })
	t.Run("url", func(t *testing.T) {
		t.Setenv(PostgresEnv, "")
		PostgresURL(t)
		t.Error("PostgresURL returned with the variable unset")
	})
}

// TestServiceURL: a set variable is returned as it is.
func TestServiceURL(t *testing.T) {
	t.Setenv(PostgresEnv, "postgres://db.example/x")
	t.Setenv(RedisEnv, "redis://cache.example/1")
	if got := PostgresURL(t); got != "postgres://db.example/x" {
		t.Errorf("PostgresURL = %q", got)
	}
	if got := RedisURL(t); got != "redis://cache.example/1" {
		t.Errorf("RedisURL = %q", got)
	}
}

// TestMissing runs TestChildMissing without -v: unset, the tests skip and
// the reason is written once; with PLINTH_TEST_REQUIRE naming postgres (or
// a misspelled name) they fail.
func TestMissing(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("child")
	}
	run := func(require string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildMissing$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=1", RequireEnv+"="+require)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil {
		t.Fatalf("unset: the child failed: %v\n%s", err, out)
	}
	if n := strings.Count(out, "postgres: tests skipped in this package: set PLINTH_TEST_POSTGRES"); n != 1 {
		t.Errorf("unset: the reason is written %d times, want once:\n%s", n, out)
	}
	out, err = run("postgres")
	if err == nil || strings.Count(out, "a missing postgres is a failure") != 4 {
		t.Errorf("postgres required: %v, want four failures:\n%s", err, out)
	}
	out, err = run("postgress")
	if err == nil || !strings.Contains(out, `names "postgress"`) {
		t.Errorf("misspelled: %v, want a failure naming it:\n%s", err, out)
	}
}
