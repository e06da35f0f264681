package api

import (
	"encoding/json"
	"mime/multipart"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/plinth-go/plinth/api/openapi"
)

// schemaGen turns Go types into JSON Schema (2020-12, as OpenAPI 3.1 uses),
// collecting named struct types in components.schemas.
//
// The rules it writes are those the validators compiled (the same
// compile, on the same tags): for each struct field its rules and whether
// it is required, so that the document says what the validator does.
type schemaGen struct {
	names   map[reflect.Type]string
	taken   map[string]reflect.Type
	schemas map[string]*openapi.Schema
	v       [2]*validators // JSON and form naming
	// closed: JSON objects refuse unknown members (Config.AllowUnknownFields
	// false), so their schemas say additionalProperties: false.
	closed bool
}

// newSchemaGen returns a generator with no component yet; closed says that
// JSON objects refuse unknown members.
func newSchemaGen(closed bool) *schemaGen {
	return &schemaGen{names: map[reflect.Type]string{}, taken: map[string]reflect.Type{}, schemas: map[string]*openapi.Schema{},
		v: [2]*validators{newValidators(false), newValidators(true)}, closed: closed}
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	bytesType      = reflect.TypeFor[[]byte]()
	fileHeaderType = reflect.TypeFor[multipart.FileHeader]()
)

// reserve claims a component name for a schema the package defines.
func (g *schemaGen) reserve(name string, schema *openapi.Schema) {
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

// exportName makes a component name prefix of a package name: typeName's
// characters, the first in upper case.
func exportName(s string) string {
	s = typeName(s)
	return strings.ToUpper(s[:1]) + s[1:]
}

// schema returns the schema of t with the field rules r (nil for none). form
// selects form field names for struct fields (and inlines the struct).
func (g *schemaGen) schema(t reflect.Type, r *rules, form bool) *openapi.Schema {
	ptr := false
	for t.Kind() == reflect.Pointer {
		if t.Elem() == fileHeaderType {
			return &openapi.Schema{Type: "string", Format: "binary"}
		}
		t, ptr = t.Elem(), true
	}
	s := g.baseSchema(t, r, form)
	if r != nil {
		schemaRules(s, t, r, ptr)
	}
	return s
}

// baseSchema returns the schema of the type t (not a pointer) before the
// field's rules: its JSON type and format, the range of a sized integer,
// the items of a list (with r's element rules), the values of a map, a
// $ref to a named struct (its schema added to the components), or an
// inlined anonymous or form struct.
func (g *schemaGen) baseSchema(t reflect.Type, r *rules, form bool) *openapi.Schema {
	if s := scalarSchema(t); s != nil {
		return s
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		var er *rules
		if r != nil {
			er = r.elemRules()
		}
		s := &openapi.Schema{Type: "array", Items: g.schema(t.Elem(), er, form)}
		if t.Kind() == reflect.Array {
			s.MinItems, s.MaxItems = ptrTo(t.Len()), ptrTo(t.Len())
		}
		return s
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return &openapi.Schema{Type: "object"}
		}
		return &openapi.Schema{Type: "object", AdditionalProperties: g.schema(t.Elem(), nil, false)}
	case reflect.Struct:
		if t.Name() == "" || form {
			return g.structSchema(t, form)
		}
		name := g.nameOf(t)
		if _, done := g.schemas[name]; !done {
			g.schemas[name] = &openapi.Schema{} // a placeholder for recursive types
			g.schemas[name] = g.structSchema(t, false)
		}
		return &openapi.Schema{Ref: "#/components/schemas/" + name}
	}
	return &openapi.Schema{} // interfaces: any value
}

// scalarSchema returns the schema of a type that JSON writes as a scalar
// (strings, numbers, booleans, time.Time, []byte, text types) or as
// anything (json.RawMessage), nil for the others.
func scalarSchema(t reflect.Type) *openapi.Schema {
	switch {
	case t == timeType:
		return &openapi.Schema{Type: "string", Format: "date-time"}
	case t == rawMessageType:
		return &openapi.Schema{}
	case t == bytesType:
		return &openapi.Schema{Type: "string", ContentEncoding: "base64"}
	case t.Kind() != reflect.String && reflect.PointerTo(t).Implements(textUnmarshalerType):
		return &openapi.Schema{Type: "string"}
	}
	switch k := t.Kind(); k {
	case reflect.String:
		return &openapi.Schema{Type: "string"}
	case reflect.Bool:
		return &openapi.Schema{Type: "boolean"}
	case reflect.Int, reflect.Int64:
		return &openapi.Schema{Type: "integer", Format: "int64"}
	case reflect.Int32:
		return &openapi.Schema{Type: "integer", Format: "int32"}
	case reflect.Int8, reflect.Int16:
		lo, hi := intRange(k)
		return &openapi.Schema{Type: "integer", Format: "int32", Minimum: ptrTo(float64(lo)), Maximum: ptrTo(float64(hi))}
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &openapi.Schema{Type: "integer", Minimum: ptrTo(0.0)}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &openapi.Schema{Type: "integer", Minimum: ptrTo(0.0), Maximum: ptrTo(float64(uintMax(k)))}
	case reflect.Float32:
		return &openapi.Schema{Type: "number", Format: "float"}
	case reflect.Float64:
		return &openapi.Schema{Type: "number", Format: "double"}
	}
	return nil
}

// ptrTo returns a pointer to a copy of v, for the model's optional numbers.
func ptrTo[T any](v T) *T { return &v }

// structSchema returns the inlined object schema of the struct t: its
// fields under their JSON (or, with form, form) names, with their rules,
// doc and example tags (and default tags of form fields), the fields the
// validator requires, and additionalProperties false when the API refuses
// unknown JSON members.
func (g *schemaGen) structSchema(t reflect.Type, form bool) *openapi.Schema {
	v := g.v[0]
	if form {
		v = g.v[1]
	}
	sc, err := v.structInfo(t)
	if err != nil {
		return &openapi.Schema{Type: "object"} // registration panics first
	}
	s := &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{}}
	for i := range sc.fields {
		f := &sc.fields[i]
		ps := g.schema(f.typ, f.rules, false)
		describe(ps, f.sf)
		if form {
			if d, ok := f.sf.Tag.Lookup("default"); ok {
				ps.Default = exampleValue(f.typ, d)
			}
		}
		s.Properties[f.name] = ps
		if f.required {
			s.Required = append(s.Required, f.name)
		}
	}
	if g.closed && !form {
		s.AdditionalProperties = openapi.False
	}
	return s
}

// describe adds a field's doc and example tags to its schema. Next to a
// $ref, OpenAPI 3.1 allows sibling keywords.
func describe(s *openapi.Schema, f reflect.StructField) {
	if d := f.Tag.Get("doc"); d != "" {
		s.Description = d
	}
	if ex, ok := f.Tag.Lookup("example"); ok {
		s.Examples = []any{exampleValue(f.Type, ex)}
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
func schemaRules(s *openapi.Schema, t reflect.Type, r *rules, ptr bool) {
	k := t.Kind()
	switch {
	case t == bytesType:
	case k == reflect.Slice || k == reflect.Array || k == reflect.Map:
		countRules(s, k, r, ptr)
	default:
		numberRules(s, r)
		stringRules(s, t, r)
		if r.required && !ptr {
			requiredRules(s, k, r)
		}
	}
}

// countRules writes minItems and maxItems of a list (minProperties and
// maxProperties of a map), with required as at least one.
func countRules(s *openapi.Schema, k reflect.Kind, r *rules, ptr bool) {
	minN, maxN := &s.MinItems, &s.MaxItems
	if k == reflect.Map {
		minN, maxN = &s.MinProperties, &s.MaxProperties
	}
	if r.minItems >= 0 {
		*minN = ptrTo(r.minItems)
	}
	if r.maxItems >= 0 {
		*maxN = ptrTo(r.maxItems)
	}
	if r.required && !ptr && k != reflect.Array && r.minItems < 1 {
		*minN = ptrTo(1)
	}
}

// numberRules writes the bounds of a number: min and max where they are
// tighter than the type's own range, exclusiveMin and exclusiveMax.
func numberRules(s *openapi.Schema, r *rules) {
	if r.min != nil && (s.Minimum == nil || *s.Minimum < *r.min) {
		s.Minimum = ptrTo(*r.min)
	}
	if r.max != nil && (s.Maximum == nil || *s.Maximum > *r.max) {
		s.Maximum = ptrTo(*r.max)
	}
	if r.exclMin != nil {
		s.ExclusiveMinimum = ptrTo(*r.exclMin)
	}
	if r.exclMax != nil {
		s.ExclusiveMaximum = ptrTo(*r.exclMax)
	}
}

// stringRules writes the length bounds, pattern, format and enum (enum
// values typed as t's values).
func stringRules(s *openapi.Schema, t reflect.Type, r *rules) {
	if r.minLength >= 0 {
		s.MinLength = ptrTo(r.minLength)
	}
	if r.maxLength >= 0 {
		s.MaxLength = ptrTo(r.maxLength)
	}
	if r.pattern != nil {
		s.Pattern = r.pattern.String()
	}
	switch r.format {
	case "":
	case "url":
		s.Format = "uri"
		if r.pattern == nil {
			s.Pattern = urlPattern
		} else {
			s.AllOf = []*openapi.Schema{{Pattern: urlPattern}}
		}
	default:
		s.Format = r.format
	}
	if r.enum != nil {
		s.Enum = make([]any, len(r.enum))
		for i, e := range r.enum {
			s.Enum[i] = exampleValue(t, e)
		}
	}
}

// requiredRules writes what required means for a value of kind k that is
// not behind a pointer: a non-empty string, true, a number other than 0
// (unless the bounds or the enum exclude 0 already).
func requiredRules(s *openapi.Schema, k reflect.Kind, r *rules) {
	switch {
	case k == reflect.String && r.minLength < 1:
		s.MinLength = ptrTo(1)
	case k == reflect.Bool:
		s.Const = true
	case k >= reflect.Int && k <= reflect.Float64:
		if enum, _ := r.numberEnum(); zeroCode(r, enum) == "" {
			s.Not = &openapi.Schema{Const: 0}
		}
	}
}

// zeroCode returns the rule that the number 0 fails, "" if none.
func zeroCode(r *rules, enum []float64) string {
	code, _ := r.numberFails(0, enum)
	return code
}
