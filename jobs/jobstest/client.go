package jobstest

import (
	"testing"

	"github.com/plinth-go/plinth/jobs"
)

// NewClient returns a jobs.Client over b with the default configuration
// (jobs.NewClient(jobs.Config{Backend: b})), failing t when NewClient
// fails (a bad PLINTH_JOB_TIMEOUT or PLINTH_ROLE in the test's
// environment). b is usually a *Backend of this package.
func NewClient(t testing.TB, b jobs.Backend) *jobs.Client {
	t.Helper()
	c, err := jobs.NewClient(jobs.Config{Backend: b})
	if err != nil {
		t.Fatalf("jobstest: %v", err)
	}
	return c
}
