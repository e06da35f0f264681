package tfb

import (
	"bytes"
	"strings"
	"testing"
)

func TestFortunesPage(t *testing.T) {
	rows := []Fortune{{2, "b <script>"}, {1, "a & z"}, {3, "B"}}
	page, err := NewFortunesPage(rows)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Release()
	got := string(page.Bytes())
	want := `<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>` +
		`<tr><td>0</td><td>Additional fortune added at request time.</td></tr>` +
		`<tr><td>3</td><td>B</td></tr>` +
		`<tr><td>1</td><td>a &amp; z</td></tr>` +
		`<tr><td>2</td><td>b &lt;script&gt;</td></tr>` +
		`</table></body></html>`
	if got != want {
		t.Fatalf("page:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(got, "&lt;") || bytes.Contains(page.Bytes(), []byte("<script>")) {
		t.Fatal("messages not escaped")
	}
}
