package redisstore_test

import (
	"testing"

	"github.com/plinth-go/plinth/internal/doccheck"
)

// TestDocSnippets compiles the ```go blocks of the repository's
// documentation that import this module (internal/doccheck's package comment
// gives the convention). The core's TestDocSnippets compiles the others; it
// leaves these here because go-redis is in this module's go.sum, not the
// core's.
func TestDocSnippets(t *testing.T) {
	doccheck.CheckModule(t, "..", "github.com/plinth-go/plinth/redisstore", "docs/web.md, docs/middleware.md and docs/cache.md")
}
