package mail_test

import (
	"io"
	"testing"

	"github.com/plinth-go/plinth/racetest"
)

// Allocation budgets of the per-message paths (bench/services measures
// their time beside go-mail), each a little above the count measured when
// it was set, so that a change that adds allocations per message fails
// here.
const (
	// WriteTo of a text and HTML message to two addresses: 89 when set,
	// 60 % of them net/mail's address parsing, the rest the multipart
	// and quoted-printable writers and the Message-ID.
	writeToBudget = 100
	// Validate of the same message: 22 when set, 19 of them net/mail's.
	validateBudget = 26
)

func TestAllocBudgets(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	m := valid()
	m.HTML = "<p>Hello, <b>Ada</b>.</p>"
	m.Subject = "Bienvenue, Zoë"
	if n := testing.AllocsPerRun(100, func() {
		if _, err := m.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	}); n > writeToBudget {
		t.Errorf("Message.WriteTo: %.0f allocations, budget %d", n, writeToBudget)
	} else {
		t.Logf("Message.WriteTo: %.0f allocations (budget %d)", n, writeToBudget)
	}
	if n := testing.AllocsPerRun(100, func() {
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
	}); n > validateBudget {
		t.Errorf("Message.Validate: %.0f allocations, budget %d", n, validateBudget)
	} else {
		t.Logf("Message.Validate: %.0f allocations (budget %d)", n, validateBudget)
	}
}
