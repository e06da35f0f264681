package suite

import (
	"strings"
	"testing"
)

func TestLoadGitHubRoutesMissing(t *testing.T) {
	_, err := LoadGitHubRoutes("testdata/does-not-exist.txt")
	if err == nil || !strings.Contains(err.Error(), "GitHub route table missing") {
		t.Fatalf("err = %v, want a message saying the table is missing", err)
	}
}
