package rediscache_test

import (
	"testing"

	"github.com/plinth-go/plinth/internal/doccheck"
)

// TestDocSnippets compiles the ```go blocks of the repository's
// documentation that import this module; the core's TestDocSnippets leaves
// them here because go-redis is in this module's go.sum, not the core's.
func TestDocSnippets(t *testing.T) {
	doccheck.CheckModule(t, "../..", "github.com/plinth-go/plinth/cache/rediscache", "docs/cache.md (Configuration)")
}
