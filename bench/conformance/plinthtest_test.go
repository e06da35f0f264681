package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// This file proves plinthtest's OpenAPI check (plinthtest/openapi*.go),
// which decides whether every user's test passes, against a maintained
// JSON Schema 2020-12 validator (the oracle: santhosh-tekuri/jsonschema
// with formats asserted). A seeded generator writes response schemas of
// the shapes Plinth's generator emits (objects closed by
// additionalProperties false, required members, $ref to components, allOf
// next to a format, "not": {"const": 0}, the ranges of sized integers,
// date-time, email, uuid, uri and the url pattern) and the shapes a
// hand-written document adds (type lists and anyOf with null, oneOf,
// uniqueItems, multipleOf, reference chains, recursive components), one
// valid body for each, and bodies that break it the ways a handler does:
// a member missing, a wrong type, null, an extra member, a value past a
// bound or exactly at it, a big integer, a string long in code points but
// not in bytes, a bad format, a duplicated item. Each body is served by an
// App whose document holds the schema and checked through plinthtest's
// public API; plinthtest must refuse exactly what the oracle refuses (but
// oracleDefects), and name the place where the body was broken.

// pnode is a generated schema with what a valid value of it is made of.
type pnode struct {
	schema map[string]any
	kind   string // leaf, object, map, array, ref, anyOf, oneOf
	good   []any  // leaf: values it accepts
	bad    []pbad // leaf: values it refuses, and why
	null   bool   // the schema allows null

	props    []pprop // object
	closed   bool    // object: additionalProperties false
	extra    *pnode  // map: additionalProperties; object: its schema for other members
	minP     int     // map: minProperties (-1 none)
	maxP     int     // map: maxProperties (-1 none)
	item     *pnode  // array
	minI     int     // array: minItems
	maxI     int     // array: maxItems (-1 none)
	unique   bool    // array: uniqueItems
	target   *pnode  // ref: the referenced schema's node (set after a recursive definition)
	alts     []*pnode
	selfName string // object: the component name of a recursive one
}

type pprop struct {
	name     string
	n        *pnode
	required bool
}

type pbad struct {
	v    any
	kind string // what is wrong; after an @, where below the value (".b")
}

// pgen generates schemas into one document's components.
type pgen struct {
	r     *rand.Rand
	comps map[string]any
	next  int
}

func num(s string) json.Number { return json.Number(s) }

// leaf returns a scalar schema from the catalogue.
func (g *pgen) leaf() *pnode {
	r := g.r
	switch r.IntN(24) {
	case 0, 1: // lengths in code points
		lo := r.IntN(4)
		hi := lo + r.IntN(5)
		s := map[string]any{"type": "string", "maxLength": hi}
		if lo > 0 || r.IntN(2) == 0 {
			s["minLength"] = lo
		}
		n := &pnode{schema: s, kind: "leaf"}
		n.good = []any{g.str(lo, false), g.str(hi, false), g.str(hi, true)}
		if lo > 0 {
			n.bad = append(n.bad, pbad{g.str(lo-1, true), "minLength"})
		}
		n.bad = append(n.bad, pbad{g.str(hi+1, false), "maxLength"}, pbad{g.str(hi+1, true), "maxLength in code points"})
		return n
	case 2: // required string (the generator's minLength 1)
		return &pnode{schema: map[string]any{"type": "string", "minLength": 1}, kind: "leaf",
			good: []any{"a", "é"}, bad: []pbad{{"", "minLength (required)"}}}
	case 3, 4:
		pats := []struct {
			p         string
			good, bad []any
		}{
			{`^[a-z]{2,4}[0-9]$`, []any{"ab1", "abcd9"}, []any{"a1", "abcde1", "AB1", "ab1\n"}},
			{`^[0-9]{5}$`, []any{"12345", "00000"}, []any{"1234", "123456", "1234a", "１２３４５"}},
			{`[0-9]`, []any{"x1y", "7"}, []any{"xyz", ""}},
			{`^\p{Lu}\p{Ll}+$`, []any{"Ada", "Émile"}, []any{"ada", "A"}},
		}
		p := pats[r.IntN(len(pats))]
		n := &pnode{schema: map[string]any{"type": "string", "pattern": p.p}, kind: "leaf", good: p.good}
		for _, b := range p.bad {
			n.bad = append(n.bad, pbad{b, "pattern"})
		}
		return n
	case 5, 6, 7:
		f := respFormats[r.IntN(len(respFormats))]
		n := &pnode{schema: map[string]any{"type": "string", "format": f.format}, kind: "leaf", good: f.good}
		for _, b := range f.bad {
			n.bad = append(n.bad, pbad{b, "format " + f.format})
		}
		return n
	case 8: // format=url: format uri and the url pattern (in an allOf next to a pattern of its own)
		if r.IntN(2) == 0 {
			return &pnode{schema: map[string]any{"type": "string", "format": "uri", "pattern": urlPattern}, kind: "leaf",
				good: []any{"https://example.com/x?y#z", "http://example.com"},
				bad:  []pbad{{"ftp://example.com/", "pattern (url)"}, {"javascript:alert(1)", "pattern (url)"}, {"https://user@example.com/", "pattern (url)"}, {"/x", "format uri"}}}
		}
		return &pnode{schema: map[string]any{"type": "string", "format": "uri", "pattern": "^https://", "allOf": []any{map[string]any{"pattern": urlPattern}}}, kind: "leaf",
			good: []any{"https://example.com/"},
			bad:  []pbad{{"http://example.com/", "pattern"}, {"https://@example.com", "allOf pattern (url)"}, {"https://", "allOf pattern (url)"}}}
	case 9:
		return &pnode{schema: map[string]any{"type": "string", "enum": []any{"red", "green", "blue"}}, kind: "leaf",
			good: []any{"red", "blue"}, bad: []pbad{{"Red", "enum"}, {"", "enum"}, {"purple", "enum"}}}
	case 10, 11: // integer bounds, at and past each
		lo := int64(r.IntN(21) - 10)
		hi := lo + int64(r.IntN(10))
		s := map[string]any{"type": "integer", "format": "int64", "minimum": lo, "maximum": hi}
		return &pnode{schema: s, kind: "leaf",
			good: []any{lo, hi, num(strconv.FormatInt(hi, 10) + ".0"), num(strconv.FormatInt(lo, 10) + "e0")},
			bad: []pbad{{lo - 1, "minimum"}, {hi + 1, "maximum"}, {num(strconv.FormatInt(lo, 10) + ".5"), "type integer (fraction)"},
				{num(fmt.Sprintf("%d.0000000001", hi)), "maximum (a decimal just past)"}}}
	case 12:
		lo := float64(r.IntN(5))
		return &pnode{schema: map[string]any{"type": "number", "format": "double", "exclusiveMinimum": lo, "exclusiveMaximum": lo + 1}, kind: "leaf",
			good: []any{lo + 0.5, num(fmt.Sprintf("%d.0000000001", int(lo)))}, // just above lo
			bad:  []pbad{{lo, "exclusiveMinimum"}, {lo + 1, "exclusiveMaximum"}, {num(fmt.Sprintf("%d.0", int(lo)+1)), "exclusiveMaximum"}}}
	case 13: // sized integers as the generator writes them
		switch r.IntN(3) {
		case 0:
			return &pnode{schema: map[string]any{"type": "integer", "format": "int32", "minimum": -128, "maximum": 127}, kind: "leaf",
				good: []any{-128, 127}, bad: []pbad{{-129, "minimum (int8)"}, {128, "maximum (int8)"}}}
		case 1:
			return &pnode{schema: map[string]any{"type": "integer", "minimum": 0}, kind: "leaf",
				good: []any{0, num("18446744073709551615"), num("123456789012345678901234567890")}, bad: []pbad{{-1, "minimum (uint)"}, {num("-0.5"), "type integer"}}}
		}
		return &pnode{schema: map[string]any{"type": "integer", "maximum": num("9007199254740992")}, kind: "leaf",
			good: []any{num("9007199254740992"), num("-9007199254740993")},
			bad:  []pbad{{num("9007199254740993"), "maximum (a big integer past float64's precision)"}, {num("1e16"), "maximum"}}}
	case 14: // required number: not const 0
		return &pnode{schema: map[string]any{"type": "integer", "not": map[string]any{"const": 0}}, kind: "leaf",
			good: []any{1, -1}, bad: []pbad{{0, "not const 0"}, {num("0.0"), "not const 0"}, {num("-0"), "not const 0"}}}
	case 15:
		if r.IntN(2) == 0 {
			return &pnode{schema: map[string]any{"type": "boolean", "const": true}, kind: "leaf", good: []any{true}, bad: []pbad{{false, "const"}}}
		}
		return &pnode{schema: map[string]any{"type": "boolean"}, kind: "leaf", good: []any{true, false}, bad: []pbad{{"true", "type boolean"}, {0, "type boolean"}}}
	case 16:
		return &pnode{schema: map[string]any{"type": "integer", "enum": []any{1, 2, 3}}, kind: "leaf",
			good: []any{1, num("2.0"), 3}, bad: []pbad{{4, "enum"}, {num("1.5"), "type"}, {0, "enum"}}}
	case 17:
		if r.IntN(2) == 0 {
			return &pnode{schema: map[string]any{"type": "number", "multipleOf": num("0.01")}, kind: "leaf",
				good: []any{num("1.23"), num("100"), num("0.1")}, bad: []pbad{{num("1.234"), "multipleOf"}, {num("0.005"), "multipleOf"}}}
		}
		return &pnode{schema: map[string]any{"type": "integer", "multipleOf": 3}, kind: "leaf",
			good: []any{0, 9, -3}, bad: []pbad{{10, "multipleOf"}, {num("4.5"), "multipleOf"}}}
	case 18: // time.Time, []byte, json.RawMessage
		switch r.IntN(3) {
		case 0:
			return &pnode{schema: map[string]any{"type": "string", "format": "date-time"}, kind: "leaf",
				good: []any{time.Date(2024, 2, 29, 12, 0, 0, 123456789, time.FixedZone("", 3600)).Format(time.RFC3339Nano)},
				bad:  []pbad{{"0001-01-01 00:00:00 +0000 UTC", "format date-time (time.Time's String)"}, {time.Now().Format(time.RFC1123), "format date-time"}}}
		case 1:
			return &pnode{schema: map[string]any{"type": "string", "contentEncoding": "base64"}, kind: "leaf", good: []any{"aGk=", ""}}
		}
		return &pnode{schema: map[string]any{}, kind: "leaf", good: []any{nil, 1, "x", []any{}, map[string]any{}}, null: true}
	case 19:
		return &pnode{schema: map[string]any{"const": "v1"}, kind: "leaf", good: []any{"v1"}, bad: []pbad{{"v2", "const"}, {nil, "const"}}}
	case 20: // overlapping oneOf: 7 matches both, so neither
		return &pnode{schema: map[string]any{"oneOf": []any{
			map[string]any{"type": "integer", "minimum": 0, "maximum": 10},
			map[string]any{"type": "integer", "minimum": 5, "maximum": 20}}}, kind: "leaf",
			good: []any{0, 4, 11, 20}, bad: []pbad{{7, "oneOf (both)"}, {5, "oneOf (both)"}, {10, "oneOf (both)"}, {21, "oneOf (none)"}, {-1, "oneOf (none)"}}}
	case 21: // composition closed by unevaluatedProperties
		return &pnode{schema: map[string]any{
			"allOf":                 []any{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}}, "required": []any{"a"}}},
			"properties":            map[string]any{"b": map[string]any{"type": "string"}},
			"unevaluatedProperties": false}, kind: "leaf",
			good: []any{map[string]any{"a": 1}, map[string]any{"a": 1, "b": "x"}},
			bad: []pbad{{map[string]any{"a": 1, "c": 2}, "unevaluatedProperties false@.c"}, {map[string]any{"a": 1, "b": 2}, "type@.b"},
				{map[string]any{"b": "x"}, "required@.a"}}}
	case 22: // only the anyOf branches that pass evaluate their members
		return &pnode{schema: map[string]any{
			"anyOf": []any{
				map[string]any{"properties": map[string]any{"x": map[string]any{"const": 1}}, "required": []any{"x"}},
				map[string]any{"properties": map[string]any{"y": map[string]any{"type": "string"}}, "required": []any{"y"}}},
			"unevaluatedProperties": map[string]any{"type": "integer"}}, kind: "leaf",
			good: []any{map[string]any{"x": 1}, map[string]any{"y": "s", "z": 3}, map[string]any{"y": "s", "x": 2}},
			bad:  []pbad{{map[string]any{"x": 1, "z": "s"}, "unevaluatedProperties@.z"}, {map[string]any{"y": "s", "x": "q"}, "unevaluatedProperties@.x"}}}
	}
	// dependentRequired, propertyNames and patternProperties: a small object
	return &pnode{schema: map[string]any{"type": "object",
		"properties":        map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
		"dependentRequired": map[string]any{"a": []any{"b"}},
		"patternProperties": map[string]any{"^x-": map[string]any{"type": "string"}},
		"propertyNames":     map[string]any{"maxLength": 5}}, kind: "leaf",
		good: []any{map[string]any{}, map[string]any{"a": 1, "b": 2}, map[string]any{"b": 2, "x-y": "z"}},
		bad: []pbad{{map[string]any{"a": 1}, "dependentRequired@.b"}, {map[string]any{"x-y": 1}, `patternProperties@["x-y"]`},
			{map[string]any{"toolong": 1}, "propertyNames@.toolong"}}}
}

// respFormats are values of each format the generator writes, on both
// sides.
var respFormats = []struct {
	format    string
	good, bad []any
}{
	{"date-time", []any{"2024-02-29T12:00:00Z", "2024-01-01T00:00:00.123456789+05:30", "1990-12-31T23:59:60Z", "2024-01-01t10:00:00z", "2024-06-30T19:59:60-04:00"},
		[]any{"2023-02-29T12:00:00Z", "2024-01-01 10:00:00Z", "2024-01-01T25:00:00Z", "2024-01-01T10:00:00", "2024-01-01", "2024-01-01T12:00:60Z", "2024-13-01T00:00:00Z", "2024-01-01T10:00:00.Z"}},
	{"date", []any{"2024-02-29", "0001-01-01"}, []any{"2023-02-29", "2024-1-01", "2024-01-01T00:00:00Z", "20240101"}},
	{"email", []any{"ada@example.com", "a.b+c@sub.example.org", "x@[192.0.2.1]", `"a b"@example.com`},
		[]any{"ada", "ada@", "a..b@example.com", "ada@exa_mple.com", "a b@example.com", ".a@example.com", "@example.com", "ada@-example.com"}},
	{"uuid", []any{"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"},
		[]any{"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", "{123e4567-e89b-12d3-a456-426614174000}", "123e4567-e89b-12d3-a4564-26614174000"}},
	{"uri", []any{"https://example.com/a?b#c", "mailto:ada@example.com", "urn:isbn:0451450523", "http://[::1]:80/"},
		[]any{"/relative/path", "example.com", "http://::1/", "http://[::1/", "%zz", "http://[fe80::1%25eth0]/"}},
	{"uri-reference", []any{"/a/b?c", "../x", "https://example.com", "#frag", ""}, []any{`\a`, "http://[::1", "%zz"}},
	{"ipv4", []any{"192.0.2.1", "0.0.0.0", "255.255.255.255"}, []any{"256.1.1.1", "01.2.3.4", "1.2.3", "::1", "1.2.3.4 "}},
	{"ipv6", []any{"::1", "2001:db8::1", "::ffff:192.0.2.1"}, []any{"2001:db8::g", "1.2.3.4", "fe80::1%eth0", ":::", "[::1]"}},
}

// urlPattern is the api package's pattern for format=url (api/formats.go).
const urlPattern = `^https?://[^/?#@:\s][^/?#@\s]*([/?#]|$)`

// str returns a string of n code points; wide makes them multi-byte.
func (g *pgen) str(n int, wide bool) string {
	runes := []rune("abcxyz09 _-")
	if wide {
		runes = []rune("é日😀ßж")
	}
	var b strings.Builder
	for range n {
		b.WriteRune(runes[g.r.IntN(len(runes))])
	}
	return b.String()
}

// node returns a schema of at most depth levels.
func (g *pgen) node(depth int) *pnode {
	r := g.r
	if depth <= 0 {
		return g.leaf()
	}
	switch r.IntN(12) {
	case 0, 1, 2:
		return g.object(depth)
	case 3:
		m := &pnode{kind: "map", extra: g.node(depth - 1), minP: -1, maxP: -1}
		m.schema = map[string]any{"type": "object", "additionalProperties": m.extra.schema}
		if r.IntN(2) == 0 {
			m.minP, m.maxP = r.IntN(2), 1+r.IntN(2)
			m.schema["minProperties"], m.schema["maxProperties"] = m.minP, m.maxP
		}
		return m
	case 4, 5:
		a := &pnode{kind: "array", item: g.node(depth - 1), maxI: -1}
		a.schema = map[string]any{"type": "array", "items": a.item.schema}
		switch r.IntN(4) {
		case 0:
			a.minI = 1 + r.IntN(2)
			a.schema["minItems"] = a.minI
		case 1:
			a.maxI = 1 + r.IntN(3)
			a.schema["maxItems"] = a.maxI
		case 2: // a Go array: fixed length
			a.minI = 1 + r.IntN(2)
			a.maxI = a.minI
			a.schema["minItems"], a.schema["maxItems"] = a.minI, a.maxI
		}
		if a.item.kind == "leaf" && distinctStrings(a.item.good) && r.IntN(3) == 0 && (a.maxI < 0 || a.maxI >= 2) {
			a.unique = true
			a.schema["uniqueItems"] = true
		}
		return a
	case 6, 7: // $ref to a component; sometimes a chain, sometimes with a sibling description, sometimes allOf
		target := g.object(depth)
		name := g.component(target.schema)
		ref := map[string]any{"$ref": "#/components/schemas/" + name}
		switch r.IntN(4) {
		case 0:
			alias := g.component(ref)
			ref = map[string]any{"$ref": "#/components/schemas/" + alias}
		case 1:
			ref["description"] = "a member that refers"
		case 2:
			ref = map[string]any{"allOf": []any{ref}, "description": "the generator's allOf"}
		}
		return &pnode{schema: ref, kind: "ref", target: target}
	case 8: // nullable: a type list, or anyOf with null
		inner := g.node(depth - 1)
		_, hasConst := inner.schema["const"]
		_, hasEnum := inner.schema["enum"]
		if t, ok := inner.schema["type"].(string); ok && inner.kind == "leaf" && !hasConst && !hasEnum && r.IntN(2) == 0 {
			s := map[string]any{}
			for k, v := range inner.schema {
				s[k] = v
			}
			s["type"] = []any{t, "null"}
			n := *inner
			n.schema, n.null = s, true
			return &n
		}
		return &pnode{schema: map[string]any{"anyOf": []any{inner.schema, map[string]any{"type": "null"}}}, kind: "anyOf", alts: []*pnode{inner}, null: true}
	case 9: // oneOf of disjoint types
		a, b := g.typed("string"), g.typed("integer")
		return &pnode{schema: map[string]any{"oneOf": []any{a.schema, b.schema}}, kind: "oneOf", alts: []*pnode{a, b}}
	case 10: // a recursive component
		name := g.newName()
		tree := &pnode{kind: "object", closed: true, selfName: name}
		children := &pnode{kind: "array", maxI: -1, item: &pnode{kind: "ref", schema: map[string]any{"$ref": "#/components/schemas/" + name}, target: tree}}
		children.schema = map[string]any{"type": "array", "items": children.item.schema}
		label := g.leaf()
		tree.props = []pprop{{"label", label, true}, {"children", children, false}}
		tree.schema = map[string]any{"type": "object", "additionalProperties": false, "required": []any{"label"},
			"properties": map[string]any{"label": label.schema, "children": children.schema}}
		g.comps[name] = tree.schema
		return &pnode{kind: "ref", schema: map[string]any{"$ref": "#/components/schemas/" + name}, target: tree}
	}
	return g.leaf()
}

// distinctStrings reports whether good holds at least two values, all
// strings and all different (so that any of them make unique items).
func distinctStrings(good []any) bool {
	seen := map[string]bool{}
	for _, v := range good {
		s, ok := v.(string)
		if !ok || seen[s] {
			return false
		}
		seen[s] = true
	}
	return len(good) >= 2
}

// typed returns a leaf of type t.
func (g *pgen) typed(t string) *pnode {
	for {
		n := g.leaf()
		if n.schema["type"] == t {
			return n
		}
	}
}

func (g *pgen) newName() string {
	g.next++
	return "C" + strconv.Itoa(g.next)
}

// component adds s to the components and returns its name.
func (g *pgen) component(s map[string]any) string {
	name := g.newName()
	g.comps[name] = s
	return name
}

// object returns an object schema as the generator writes a struct:
// properties, the required ones, additionalProperties false (or open, or
// with a schema of its own).
func (g *pgen) object(depth int) *pnode {
	r := g.r
	n := &pnode{kind: "object"}
	props := map[string]any{}
	var req []any
	for i := range 1 + r.IntN(4) {
		name := []string{"id", "name", "total", "tags", "owner", "créé", "a-b", "x"}[(i*3+r.IntN(3))%8]
		if _, dup := props[name]; dup {
			continue
		}
		p := pprop{name: name, n: g.node(depth - 1), required: r.IntN(2) == 0}
		n.props = append(n.props, p)
		props[name] = p.n.schema
		if p.required {
			req = append(req, name)
		}
	}
	n.schema = map[string]any{"type": "object", "properties": props}
	if len(req) > 0 {
		n.schema["required"] = req
	}
	switch r.IntN(5) {
	case 0, 1, 2:
		n.closed = true
		n.schema["additionalProperties"] = false
	case 3:
		n.extra = g.leaf()
		n.schema["additionalProperties"] = n.extra.schema
	}
	return n
}

// valid returns a value that n accepts; budget bounds recursion.
func (g *pgen) valid(n *pnode, budget int) any {
	r := g.r
	switch n.kind {
	case "leaf":
		if n.null && r.IntN(4) == 0 {
			return nil
		}
		return n.good[r.IntN(len(n.good))]
	case "object":
		m := map[string]any{}
		for _, p := range n.props {
			if p.required || budget > 0 && r.IntN(3) > 0 {
				m[p.name] = g.valid(p.n, budget-1)
			}
		}
		if n.extra != nil && r.IntN(2) == 0 {
			m["more"] = g.valid(n.extra, budget-1)
		}
		return m
	case "map":
		k := 1 + r.IntN(2)
		if n.minP >= 0 {
			k = n.minP + r.IntN(n.maxP-n.minP+1)
		}
		m := map[string]any{}
		for i := range k {
			m["k"+strconv.Itoa(i)] = g.valid(n.extra, budget-1)
		}
		return m
	case "array":
		k := n.minI
		if budget > 0 {
			hi := 3
			if n.maxI >= 0 {
				hi = n.maxI
			}
			k += r.IntN(hi - n.minI + 1)
		}
		list := []any{}
		if n.unique {
			perm := r.Perm(len(n.item.good))
			for i := 0; i < k && i < len(perm); i++ {
				list = append(list, n.item.good[perm[i]])
			}
			for len(list) < n.minI {
				list = append(list, n.item.good[0])
			}
			return list
		}
		for range k {
			list = append(list, g.valid(n.item, budget-1))
		}
		return list
	case "ref":
		return g.valid(n.target, budget-1)
	case "anyOf":
		if r.IntN(3) == 0 {
			return nil
		}
		return g.valid(n.alts[0], budget)
	case "oneOf":
		return g.valid(n.alts[r.IntN(len(n.alts))], budget)
	}
	panic(n.kind)
}

// pmut is a body broken in one place: loc is where plinthtest must say
// the body is wrong (the place itself, or the anyOf or oneOf above it).
type pmut struct {
	v    any
	loc  string
	kind string
}

// wrongType returns a value of another JSON type than v, the way a
// handler gets one wrong.
func wrongTypes(v any) []pbad {
	switch x := v.(type) {
	case string:
		return []pbad{{num("7"), "type (a number for a string)"}, {nil, "type (null)"}}
	case json.Number, int, int64, float64:
		_ = x
		return []pbad{{"7", "type (a string for a number)"}, {nil, "type (null)"}, {true, "type (a boolean)"}}
	case bool:
		return []pbad{{"false", "type (a string for a boolean)"}, {nil, "type (null)"}}
	case []any:
		return []pbad{{map[string]any{}, "type (an object for an array)"}, {nil, "type (null: a nil slice)"}}
	case map[string]any:
		return []pbad{{[]any{}, "type (an array for an object)"}, {nil, "type (null: a nil pointer)"}, {"{}", "type (a string)"}}
	}
	return []pbad{{map[string]any{"x": 1}, "type"}}
}

// muts returns the ways to break v, a valid value of n at loc.
func (g *pgen) muts(n *pnode, v any, loc string) []pmut {
	var out []pmut
	if n.kind != "leaf" || len(n.schema) > 0 {
		for _, b := range wrongTypes(v) {
			if !(b.v == nil && n.null) {
				out = append(out, pmut{b.v, loc, b.kind})
			}
		}
	}
	switch n.kind {
	case "leaf":
		for _, b := range n.bad {
			kind, at, _ := strings.Cut(b.kind, "@")
			out = append(out, pmut{b.v, loc + at, kind})
		}
	case "object":
		m, _ := v.(map[string]any)
		for _, p := range n.props {
			pv, present := m[p.name]
			if !present {
				continue
			}
			if p.required {
				out = append(out, pmut{without(m, p.name), loc + pmember(p.name), "required"})
			}
			for _, c := range g.muts(p.n, pv, loc+pmember(p.name)) {
				out = append(out, pmut{with(m, p.name, c.v), c.loc, c.kind})
			}
		}
		if n.closed {
			out = append(out, pmut{with(m, "zz_extra", "x"), loc + ".zz_extra", "additionalProperties false"})
		}
		if n.extra != nil {
			if mv, ok := m["more"]; ok {
				for _, c := range g.muts(n.extra, mv, loc+".more") {
					out = append(out, pmut{with(m, "more", c.v), c.loc, "additionalProperties: " + c.kind})
				}
			}
		}
	case "map":
		m, _ := v.(map[string]any)
		keys := sortedKeys(m)
		for _, k := range keys {
			for _, c := range g.muts(n.extra, m[k], loc+"."+k) {
				out = append(out, pmut{with(m, k, c.v), c.loc, "additionalProperties: " + c.kind})
			}
		}
		if n.maxP >= 0 {
			big := map[string]any{}
			for i := range n.maxP + 1 {
				big["k"+strconv.Itoa(i)] = g.valid(n.extra, 1)
			}
			out = append(out, pmut{big, loc, "maxProperties"})
		}
		if n.minP > 0 {
			out = append(out, pmut{map[string]any{}, loc, "minProperties"})
		}
	case "array":
		list, _ := v.([]any)
		for i, it := range list {
			for _, c := range g.muts(n.item, it, loc+"["+strconv.Itoa(i)+"]") {
				cp := append([]any(nil), list...)
				cp[i] = c.v
				out = append(out, pmut{cp, c.loc, c.kind})
			}
		}
		if n.maxI >= 0 {
			cp := append([]any(nil), list...)
			for len(cp) <= n.maxI {
				cp = append(cp, g.valid(n.item, 0))
			}
			out = append(out, pmut{cp, loc, "maxItems"})
		}
		if n.minI > 0 {
			out = append(out, pmut{list[:n.minI-1], loc, "minItems"})
		}
		if n.unique && len(list) > 0 && (n.maxI < 0 || len(list) < n.maxI) {
			out = append(out, pmut{append(append([]any(nil), list...), list[0]), loc + "[" + strconv.Itoa(len(list)) + "]", "uniqueItems"})
		}
	case "ref":
		out = append(out, g.muts(n.target, v, loc)...)
	case "anyOf", "oneOf":
		for _, a := range n.alts {
			if a.accepts(v) {
				for _, c := range g.muts(a, v, loc) {
					out = append(out, pmut{c.v, loc, n.kind + ": " + c.kind})
				}
			}
		}
	}
	return out
}

// accepts reports, roughly, whether v could be a value of the leaf a (its
// JSON type), to pick the alternative a valid value came from.
func (a *pnode) accepts(v any) bool {
	t, _ := a.schema["type"].(string)
	switch v.(type) {
	case string:
		return t == "string"
	case nil:
		return false
	case json.Number, int, int64, float64:
		return t == "integer" || t == "number"
	case bool:
		return t == "boolean"
	case []any:
		return a.kind == "array"
	case map[string]any:
		return a.kind == "object" || a.kind == "map" || a.kind == "ref"
	}
	return a.kind != "leaf"
}

func pmember(k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return "." + k
	}
	b, _ := json.Marshal(k)
	return "[" + string(b) + "]"
}

func with(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for kk, vv := range m {
		out[kk] = vv
	}
	out[k] = v
	return out
}

func without(m map[string]any, k string) map[string]any {
	out := make(map[string]any, len(m))
	for kk, vv := range m {
		if kk != k {
			out[kk] = vv
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pcase is one generated (schema, body) pair.
type pcase struct {
	schema map[string]any
	body   []byte
	loc    string // "" for a body meant to be valid
	kind   string
}

// captureTB is a testing.TB that records the first failure of a helper.
type captureTB struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *captureTB) Helper()      {}
func (f *captureTB) Name() string { return "capture" }
func (f *captureTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	if f.msg == "" {
		f.msg = fmt.Sprintf(format, args...)
	}
	f.mu.Unlock()
}
func (f *captureTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}
func (f *captureTB) Fatal(args ...any)   { f.Fatalf("%s", fmt.Sprint(args...)) }
func (f *captureTB) Error(args ...any)   { f.Errorf("%s", fmt.Sprint(args...)) }
func (f *captureTB) Logf(string, ...any) {}
func (f *captureTB) Log(...any)          {}
func (f *captureTB) Cleanup(func())      {}

// run calls fn with f in a goroutine of its own (Fatalf ends it) and
// returns the first failure, "" for none.
func (f *captureTB) run(fn func(tb testing.TB)) string {
	f.msg = ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f.msg
}

// checkedLocation reads the JSON path out of plinthtest's failure ("at
// $.a[2]: ..."); ok false when the message names none.
func checkedLocation(msg string) (string, bool) {
	_, rest, ok := strings.Cut(msg, "OpenAPI document: at $")
	if !ok {
		return "", false
	}
	loc, _, ok := strings.Cut(rest, ": ")
	return loc, ok
}

// TestPlinthtestAgainstOracle is the generated comparison (see the top of
// the file).
func TestPlinthtestAgainstOracle(t *testing.T) {
	const schemas = 500
	r := rand.New(rand.NewPCG(38, 2))
	g := &pgen{r: r, comps: map[string]any{}}
	var cases []pcase
	for range schemas {
		n := g.node(1 + r.IntN(3))
		for range 2 {
			v := g.valid(n, 3)
			cases = append(cases, pcase{schema: n.schema, body: mustJSONBytes(t, v), kind: "valid"})
			ms := g.muts(n, v, "")
			r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
			for _, m := range ms[:min(len(ms), 3)] {
				cases = append(cases, pcase{schema: n.schema, body: mustJSONBytes(t, m.v), loc: m.loc, kind: m.kind})
			}
		}
	}

	type tally struct{ pairs, valid, invalid, disagree, known, locs int }
	var all tally
	byKind := map[string]*tally{}
	tb := &captureTB{}
	const batch = 100 // pairs per App and document: the oracle's compile copies its document
	for lo := 0; lo < len(cases); lo += batch {
		part := cases[lo:min(lo+batch, len(cases))]
		app, comp := servePairs(t, part, g.comps)
		client := plinthtest.New(tb, app, plinthtest.Config{})
		for j, c := range part {
			i := lo + j
			sch, err := comp.Compile("doc.json#/paths/~1p~1" + strconv.Itoa(j) + "/get/responses/200/content/application~1json/schema")
			if err != nil {
				t.Fatalf("pair %d: the oracle cannot compile the schema: %v", i, err)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(c.body)))
			if err != nil {
				t.Fatal(err)
			}
			oerr := sch.Validate(inst)
			want := oerr == nil
			msg := tb.run(func(tb testing.TB) { client.Get("/p/" + strconv.Itoa(j)) })
			got := msg == ""
			k := byKind[c.kind]
			if k == nil {
				k = &tally{}
				byKind[c.kind] = k
			}
			all.pairs++
			k.pairs++
			if want {
				all.valid++
			} else {
				all.invalid++
			}
			if got != want {
				if reason, known := pairDefect(c.body); known && !got {
					all.known++
					t.Logf("pair %d (%s): plinthtest refuses, the oracle accepts: %s", i, c.kind, reason)
					continue
				}
				all.disagree++
				k.disagree++
				t.Errorf("pair %d (%s): plinthtest %s, the oracle %s\n  schema %s\n  body   %s\n  plinthtest: %s\n  oracle: %v",
					i, c.kind, verdict(got), verdict(want), mustJSON(c.schema), c.body, firstLine(msg), oerr)
				continue
			}
			if got {
				continue
			}
			loc, ok := checkedLocation(msg)
			if !ok {
				t.Errorf("pair %d (%s): plinthtest names no location: %s", i, c.kind, firstLine(msg))
				continue
			}
			if c.kind != "valid" && loc != c.loc {
				t.Errorf("pair %d (%s): plinthtest says $%s, the body was broken at $%s\n  schema %s\n  body   %s\n  plinthtest: %s",
					i, c.kind, loc, c.loc, mustJSON(c.schema), c.body, firstLine(msg))
				continue
			}
			all.locs++
		}
	}
	if all.pairs < 2000 {
		t.Errorf("%d pairs, want at least 2000", all.pairs)
	}
	if all.valid < 700 || all.invalid < 1000 {
		t.Errorf("%d valid and %d invalid pairs: the generator lost a side", all.valid, all.invalid)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var lines []string
	for _, k := range kinds {
		lines = append(lines, fmt.Sprintf("%s %d", k, byKind[k].pairs))
	}
	t.Logf("%d pairs (%d valid, %d invalid by the oracle), %d disagreements, %d known oracle defects, %d locations checked\n  %s",
		all.pairs, all.valid, all.invalid, all.disagree, all.known, all.locs, strings.Join(lines, "\n  "))
}

// servePairs returns an App that serves each pair's body at GET /p/{j},
// with a document that declares each pair's schema as the 200 response of
// its path, and the oracle's compiler of the same document (formats
// asserted).
func servePairs(t *testing.T, part []pcase, comps map[string]any) (*plinth.App, *jsonschema.Compiler) {
	paths := map[string]any{}
	for j, c := range part {
		paths["/p/"+strconv.Itoa(j)] = map[string]any{"get": map[string]any{"responses": map[string]any{
			"200": map[string]any{"description": "OK", "content": map[string]any{"application/json": map[string]any{"schema": c.schema}}}}}}
	}
	doc := map[string]any{"openapi": "3.1.0", "info": map[string]any{"title": "generated", "version": "1"},
		"paths": paths, "components": map[string]any{"schemas": comps}}
	docJSON := mustJSONBytes(t, doc)
	app := plinth.Bare()
	app.Handle("GET /p/{j}", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		j, _ := strconv.Atoi(req.PathValue("j"))
		w.Header().Set("Content-Type", "application/json")
		w.Write(part[j].body)
	}))
	app.SetOpenAPI(func() ([]byte, error) { return docJSON, nil })
	oracleDoc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(docJSON)))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	if err := comp.AddResource("doc.json", oracleDoc); err != nil {
		t.Fatal(err)
	}
	return app, comp
}

// pairDefect says whether a body holds a value in oracleDefects.
func pairDefect(body []byte) (string, bool) {
	for v, reason := range oracleDefects {
		if strings.Contains(string(body), v) {
			return reason, true
		}
	}
	return "", false
}

func mustJSONBytes(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
