package tfb

import (
	"bytes"
	"html/template"
	"slices"
	"strings"
)

// Fortune is a row of the Fortune table.
type Fortune struct {
	ID      int32
	Message string
}

// ExtraFortune is the row added at request time, as TFB requires.
var ExtraFortune = Fortune{ID: 0, Message: "Additional fortune added at request time."}

// fortunesTemplate renders the fortunes page; html/template escapes the
// messages.
var fortunesTemplate = template.Must(template.New("fortunes").Parse(
	`<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>` +
		`{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>{{end}}` +
		`</table></body></html>`))

// SortFortunes adds ExtraFortune to rows and sorts them by message, in byte
// order, as TFB requires. It returns the grown slice.
func SortFortunes(rows []Fortune) []Fortune {
	rows = append(rows, ExtraFortune)
	slices.SortFunc(rows, func(a, b Fortune) int { return strings.Compare(a.Message, b.Message) })
	return rows
}

// RenderFortunes writes the fortunes page for rows (already sorted) to buf
// through html/template.
func RenderFortunes(buf *bytes.Buffer, rows []Fortune) error {
	return fortunesTemplate.Execute(buf, rows)
}
