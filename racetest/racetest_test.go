package racetest_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/racetest"
)

// TestEnabledFollowsTheBuild: Enabled is what the toolchain says of this
// build (go test -race sets the build tag race), checked in a child built
// the other way too, so that both files are compiled and right.
func TestEnabledFollowsTheBuild(t *testing.T) {
	if os.Getenv("PLINTH_TEST_RACETEST_CHILD") != "" {
		t.Logf("racetest.Enabled=%v", racetest.Enabled)
		return
	}
	if testing.Short() {
		t.Skip("-short: builds the package again")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, race := range []bool{false, true} {
		args := []string{"test", "-count=1", "-v", "-run", "^TestEnabledFollowsTheBuild$"}
		if race {
			args = append(args, "-race")
		}
		args = append(args, ".")
		cmd := exec.Command(gobin, args...)
		cmd.Env = append(os.Environ(), "PLINTH_TEST_RACETEST_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			if race && strings.Contains(string(out), "-race is not supported") {
				t.Logf("-race is not supported here: %s", out)
				continue
			}
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if want := fmt.Sprintf("racetest.Enabled=%v", race); !strings.Contains(string(out), want) {
			t.Errorf("built with -race=%v: want %s in\n%s", race, want, out)
		}
	}
}
