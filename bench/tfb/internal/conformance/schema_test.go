package conformance

import (
	"os"
	"testing"

	"github.com/plinth-go/plinth/bench/tfb/internal/tfbtest"
	"github.com/plinth-go/plinth/bench/tfb/internal/verify"
)

// tempDatabase creates a database with the TFB schema (world with 10,000
// rows, fortune with testdata/fortunes.tsv) on the server of
// PLINTH_TEST_POSTGRES and returns its URL; it is dropped when the test
// ends.
func tempDatabase(t *testing.T) string {
	t.Helper()
	var rows []tfbtest.Fortune
	for _, f := range fortunes(t) {
		rows = append(rows, tfbtest.Fortune{ID: f.ID, Message: f.Message})
	}
	return tfbtest.TempDatabase(t, rows)
}

// fortunes reads testdata/fortunes.tsv (id TAB message).
func fortunes(t *testing.T) []verify.Fortune {
	t.Helper()
	f, err := os.Open("../../testdata/fortunes.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := verify.ParseFortunes(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
