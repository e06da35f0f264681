package api

import (
	"encoding/json"
	"mime/multipart"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// schemaGen turns Go types into JSON Schema (2020-12, as OpenAPI 3.1 uses),
// collecting named struct types in components/schemas.
//
// The rules it writes are those the validators compiled (the same
// compile, on the same tags): for each struct field its rules and whether
// it is required, so that the document says what the validator does.
type schemaGen struct {
	names   map[reflect.Type]string
	taken   map[string]reflect.Type
	schemas map[string]any
	v       [2]*validators // JSON and form naming
	// closed: JSON objects refuse unknown members (Config.AllowUnknownFields
	// false), so their schemas say additionalProperties: false.
	closed bool
}

func newSchemaGen(closed bool) *schemaGen {
	return &schemaGen{names: map[reflect.Type]string{}, taken: map[string]reflect.Type{}, schemas: map[string]any{},
		v: [2]*validators{newValidators(false), newValidators(true)}, closed: closed}
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	bytesType      = reflect.TypeFor[[]byte]()
	fileHeaderType = reflect.TypeFor[multipart.FileHeader]()
)

// reserve claims a component name for a schema the package defines.
func (g *schemaGen) reserve(name string, schema map[string]any) {
	g.taken[name] = nil
	g.schemas[name] = schema
}

// nameOf returns the component name of a named type: its Go name, or
// prefixed by its package's name when another type took the name, or
// numbered after that.
func (g *schemaGen) nameOf(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	base := typeName(t.Name())
	name := base
	if _, clash := g.taken[name]; clash {
		pkg := t.PkgPath()
		if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
			pkg = pkg[i+1:]
		}
		name = exportName(pkg) + base
		for i := 2; ; i++ {
			if _, clash := g.taken[name]; !clash {
				break
			}
			name = exportName(pkg) + base + strconv.Itoa(i)
		}
	}
	g.names[t], g.taken[name] = name, t
	return name
}

// typeName makes a component name of a Go type name, generic arguments
// included: "Page[example.com/m.Item]" becomes "PageItem".
func typeName(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '[' || r == ']' || r == ',' || r == ' ' }) {
		if i := strings.LastIndexByte(part, '.'); i >= 0 {
			part = part[i+1:]
		}
		for _, r := range part {
			if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
				b.WriteRune(r)
			}
		}
	}
	if b.Len() == 0 {
		return "Type"
	}
	return b.String()
}

func exportName(s string) string {
	s = typeName(s)
	return strings.ToUpper(s[:1]) + s[1:]
}

// schema returns the schema of t with the field rules r (nil for none). form
// selects form field names for struct fields (and inlines the struct).
func (g *schemaGen) schema(t reflect.Type, r *rules, form bool) map[string]any {
	ptr := false
	for t.Kind() == reflect.Pointer {
		if t.Elem() == fileHeaderType {
			return map[string]any{"type": "string", "format": "binary"}
		}
		t, ptr = t.Elem(), true
	}
	s := g.baseSchema(t, r, form)
	if r != nil {
		schemaRules(s, t, r, ptr)
	}
	return s
}

func (g *schemaGen) baseSchema(t reflect.Type, r *rules, form bool) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawMessageType:
		return map[string]any{}
	case t == bytesType:
		return map[string]any{"type": "string", "contentEncoding": "base64"}
	case t.Kind() != reflect.String && reflect.PointerTo(t).Implements(textUnmarshalerType):
		return map[string]any{"type": "string"}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Int32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int8, reflect.Int16:
		lo, hi := intRange(t.Kind())
		return map[string]any{"type": "integer", "format": "int32", "minimum": lo, "maximum": hi}
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return map[string]any{"type": "integer", "minimum": 0, "maximum": uintMax(t.Kind())}
	case reflect.Float32:
		return map[string]any{"type": "number", "format": "float"}
	case reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	case reflect.Slice, reflect.Array:
		var er *rules
		if r != nil {
			er = r.elemRules()
		}
		s := map[string]any{"type": "array", "items": g.schema(t.Elem(), er, form)}
		if t.Kind() == reflect.Array {
			s["minItems"], s["maxItems"] = t.Len(), t.Len()
		}
		return s
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return map[string]any{"type": "object"}
		}
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem(), nil, false)}
	case reflect.Struct:
		if t.Name() == "" || form {
			return g.structSchema(t, form)
		}
		name := g.nameOf(t)
		if _, done := g.schemas[name]; !done {
			g.schemas[name] = map[string]any{} // a placeholder for recursive types
			g.schemas[name] = g.structSchema(t, false)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{} // interfaces: any value
}

func (g *schemaGen) structSchema(t reflect.Type, form bool) map[string]any {
	v := g.v[0]
	if form {
		v = g.v[1]
	}
	sc, err := v.structInfo(t)
	if err != nil {
		return map[string]any{"type": "object"} // registration panics first
	}
	props := map[string]any{}
	var required []string
	for i := range sc.fields {
		f := &sc.fields[i]
		ps := g.schema(f.typ, f.rules, false)
		describe(ps, f.sf, f.rules)
		if form {
			if d, ok := f.sf.Tag.Lookup("default"); ok {
				ps["default"] = exampleValue(f.typ, d)
			}
		}
		props[f.name] = ps
		if f.required {
			required = append(required, f.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if g.closed && !form {
		s["additionalProperties"] = false
	}
	return s
}

// describe adds a field's doc and example tags to its schema. Next to a
// $ref, OpenAPI 3.1 allows sibling keywords.
func describe(s map[string]any, f reflect.StructField, r *rules) {
	if d := f.Tag.Get("doc"); d != "" {
		s["description"] = d
	}
	if ex, ok := f.Tag.Lookup("example"); ok {
		s["examples"] = []any{exampleValue(f.Type, ex)}
	}
}

// exampleValue types an example or default tag by the field's type: a
// number, a boolean, a list (comma-separated) or a string.
func exampleValue(t reflect.Type, s string) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return n
		}
	case reflect.Float32, reflect.Float64:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case reflect.Bool:
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	case reflect.Slice:
		if t != bytesType && t.Elem().Kind() != reflect.Struct {
			var out []any
			for _, p := range splitList(s) {
				out = append(out, exampleValue(t.Elem(), p))
			}
			return out
		}
	}
	return s
}

// schemaRules writes the rules r into the schema s of a value of type t
// (ptr: behind a pointer), as the validator compiled from the same rules
// checks them (validate.go):
//   - required on a value (not a pointer, which required makes non-nil
//     only) refuses the zero value: a string gets minLength 1, a slice
//     minItems 1, a map minProperties 1, a number "not": {"const": 0} unless
//     its bounds exclude 0 already, a bool "const": true;
//   - the bounds of a sized integer type meet those of min and max;
//   - format=url is format "uri" and urlPattern (in an allOf when the field
//     has its own pattern);
//   - on slices and arrays, the scalar rules are those of the items
//     (baseSchema), the list has minItems and maxItems.
func schemaRules(s map[string]any, t reflect.Type, r *rules, ptr bool) {
	num := func(name string) any {
		f, _ := strconv.ParseFloat(r.text[name], 64)
		if f == float64(int64(f)) {
			return int64(f)
		}
		return f
	}
	k := t.Kind()
	list := k == reflect.Slice || k == reflect.Array || k == reflect.Map
	if list && t != bytesType {
		minKey, maxKey := "minItems", "maxItems"
		if k == reflect.Map {
			minKey, maxKey = "minProperties", "maxProperties"
		}
		if r.minItems >= 0 {
			s[minKey] = r.minItems
		}
		if r.maxItems >= 0 {
			s[maxKey] = r.maxItems
		}
		if r.required && !ptr && k != reflect.Array && r.minItems < 1 {
			s[minKey] = 1
		}
		return
	}
	if t == bytesType {
		return
	}
	if r.min != nil {
		if cur, ok := s["minimum"]; !ok || toFloat(cur) < *r.min {
			s["minimum"] = num("min")
		}
	}
	if r.max != nil {
		if cur, ok := s["maximum"]; !ok || toFloat(cur) > *r.max {
			s["maximum"] = num("max")
		}
	}
	if r.exclMin != nil {
		s["exclusiveMinimum"] = num("exclusiveMin")
	}
	if r.exclMax != nil {
		s["exclusiveMaximum"] = num("exclusiveMax")
	}
	if r.minLength >= 0 {
		s["minLength"] = r.minLength
	}
	if r.required && !ptr {
		switch {
		case k == reflect.String && r.minLength < 1:
			s["minLength"] = 1
		case k == reflect.Bool:
			s["const"] = true
		case k >= reflect.Int && k <= reflect.Float64:
			if enum, _ := r.numberEnum(); zeroCode(r, enum) == "" {
				s["not"] = map[string]any{"const": 0}
			}
		}
	}
	if r.maxLength >= 0 {
		s["maxLength"] = r.maxLength
	}
	if r.pattern != nil {
		s["pattern"] = r.pattern.String()
	}
	switch r.format {
	case "":
	case "url":
		s["format"] = "uri"
		if r.pattern == nil {
			s["pattern"] = urlPattern
		} else {
			s["allOf"] = []any{map[string]any{"pattern": urlPattern}}
		}
	default:
		s["format"] = r.format
	}
	if r.enum != nil {
		vals := make([]any, len(r.enum))
		for i, e := range r.enum {
			vals[i] = exampleValue(t, e)
		}
		s["enum"] = vals
	}
}

// zeroCode returns the rule that the number 0 fails, "" if none.
func zeroCode(r *rules, enum []float64) string {
	code, _ := r.numberFails(0, enum)
	return code
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case uint64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}
