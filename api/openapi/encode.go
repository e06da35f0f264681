package openapi

import (
	"bytes"
	"encoding/json"
)

// JSON returns the document as JSON indented by two spaces, its object
// members sorted by name, HTML characters not escaped, with a final
// newline. The same document always gives the same bytes.
func (d *Document) JSON() ([]byte, error) { return encode(d, "  ") }

// YAML returns the document as block-style YAML with the same content as
// JSON: mapping keys sorted, every string (keys included) double-quoted with
// JSON escapes, numbers, booleans and null as JSON writes them, empty
// mappings and lists as {} and [].
func (d *Document) YAML() ([]byte, error) {
	j, err := d.JSON()
	if err != nil {
		return nil, err
	}
	return jsonToYAML(j)
}

// encode marshals v without HTML escaping, indented by indent ("" for
// none); an indented result ends with a newline, a compact one does not.
func encode(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if indent == "" {
		return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
	}
	return b.Bytes(), nil
}
