package openapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// jsonToYAML re-emits a JSON document as block-style YAML: mapping keys
// sorted, every string (keys included) double-quoted with JSON escapes,
// which YAML's double-quoted style reads the same way, and numbers, booleans
// and null as JSON writes them. Empty maps and lists are written {} and [].
func jsonToYAML(j []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeYAML(&b, v, 0, false)
	return b.Bytes(), nil
}

// writeYAML writes v at indent. inline means the cursor is already placed
// after "- " for the first line of a list item.
func writeYAML(b *bytes.Buffer, v any, indent int, inline bool) {
	pad := strings.Repeat("  ", indent)
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 || !inline {
				b.WriteString(pad)
			}
			yamlScalar(b, k)
			b.WriteByte(':')
			writeNested(b, x[k], indent)
		}
	case []any:
		for i, e := range x {
			if i > 0 || !inline {
				b.WriteString(pad)
			}
			b.WriteString("- ")
			switch ev := e.(type) {
			case map[string]any:
				if len(ev) > 0 {
					writeYAML(b, ev, indent+1, true)
					continue
				}
			case []any:
				if len(ev) > 0 {
					writeYAML(b, ev, indent+1, true)
					continue
				}
			}
			yamlScalar(b, e)
			b.WriteByte('\n')
		}
	default:
		b.WriteString(pad)
		yamlScalar(b, v)
		b.WriteByte('\n')
	}
}

// writeNested writes the value of a mapping entry whose "key:" is written.
func writeNested(b *bytes.Buffer, v any, indent int) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			b.WriteByte('\n')
			writeYAML(b, x, indent+1, false)
			return
		}
	case []any:
		if len(x) > 0 {
			b.WriteByte('\n')
			writeYAML(b, x, indent+1, false)
			return
		}
	}
	b.WriteByte(' ')
	yamlScalar(b, v)
	b.WriteByte('\n')
}

// yamlScalar writes a JSON scalar as YAML: null, a boolean, a number as
// JSON wrote it, a string double-quoted with JSON escapes, and an empty
// mapping or list as {} or [].
func yamlScalar(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(x.String())
	case string:
		enc, _ := json.Marshal(x) // JSON escapes are valid in YAML double-quoted scalars
		b.Write(enc)
	case map[string]any:
		b.WriteString("{}")
	case []any:
		b.WriteString("[]")
	}
}
