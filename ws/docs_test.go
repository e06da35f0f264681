package ws_test

import (
	"testing"

	"github.com/plinth-go/plinth/internal/doccheck"
)

// TestDocSnippets compiles the ```go blocks of the docs that import this
// module (the core's own test leaves them to this one).
func TestDocSnippets(t *testing.T) {
	doccheck.CheckModule(t, "..", "github.com/plinth-go/plinth/ws", "docs/realtime.md (WebSocket)")
}
