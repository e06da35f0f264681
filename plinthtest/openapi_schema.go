package plinthtest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxSchemaDepth bounds the nesting of schemas (references, combinators
// and members) that validate follows; deeper, the value fails as
// unchecked rather than passing.
const maxSchemaDepth = 512

// validate checks v (decoded with UseNumber) against schema with the
// assertions of JSON Schema 2020-12 that an OpenAPI 3.1 document uses,
// wherever they appear: $ref (a JSON pointer into the document, next to
// sibling keywords), type (a name or a list), enum, const, multipleOf,
// minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers compared
// exactly, big integers and decimals included), minLength and maxLength
// (in code points), pattern, format (date-time, date, time, email,
// hostname, ipv4, ipv6, uri, uri-reference, uuid), items, prefixItems,
// contains, minContains, maxContains, minItems, maxItems, uniqueItems,
// properties, patternProperties, additionalProperties, propertyNames,
// required, dependentRequired, dependentSchemas, minProperties,
// maxProperties, unevaluatedProperties, allOf, anyOf, oneOf, not, if, then
// and else. null is a value like any other: it passes only a schema that
// allows it (in an OpenAPI 3.0 document, nullable: true allows it;
// exclusiveMinimum: true and exclusiveMaximum: true make minimum and
// maximum exclusive). A keyword it cannot check (unevaluatedItems,
// $dynamicRef, a pattern Go cannot compile) fails the value rather than
// passing it.
//
// It returns the JSON path of the first mismatch below v ("" for v
// itself, ".a[2]" below it: built only on a mismatch, so that a valid
// body costs no strings) and what it is, or two empty strings.
func (d *document) validate(v, schema any, depth int) (string, string) {
	if depth > maxSchemaDepth {
		return "", fmt.Sprintf("the schema nests deeper than %d levels: not checked", maxSchemaDepth)
	}
	switch s := schema.(type) {
	case bool:
		if !s {
			return "", "no value is allowed here (the schema is false)"
		}
		return "", ""
	case map[string]any:
		return d.validateKeywords(v, s, depth)
	case nil:
		return "", ""
	}
	return "", fmt.Sprintf("the schema is %s, not an object or a boolean: not checked", short(schema))
}

func (d *document) validateKeywords(v any, s map[string]any, depth int) (string, string) {
	if ref, ok := s["$ref"].(string); ok {
		target, found := d.pointer(ref)
		if !found {
			return "", fmt.Sprintf("the schema's $ref %q points to nothing in the document: not checked", ref)
		}
		if p, m := d.validate(v, target, depth+1); m != "" {
			return p, m
		}
	}
	if t, ok := s["type"]; ok {
		got := jsonType(v)
		if nullable, _ := s["nullable"].(bool); got == "null" && nullable && d.v30 {
			got = "" // OpenAPI 3.0's nullable: null passes the type
		}
		if got != "" && !typeMatches(t, got) {
			want := strings.Join(typeNames(t), " or ")
			if got == "null" {
				return "", fmt.Sprintf("null, want %s", want)
			}
			return "", fmt.Sprintf("%s %s, want %s", got, short(v), want)
		}
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if jsonEqual(x, v) {
				found = true
				break
			}
		}
		if !found {
			return "", fmt.Sprintf("%s is not one of %s", short(v), short(e))
		}
	}
	if cst, ok := s["const"]; ok && !jsonEqual(cst, v) {
		return "", fmt.Sprintf("%s, want %s", short(v), short(cst))
	}
	var p, m string
	switch x := v.(type) {
	case json.Number:
		p, m = d.validateNumber(x, s)
	case string:
		p, m = d.validateString(x, s)
	case []any:
		p, m = d.validateArray(x, s, depth)
	case map[string]any:
		p, m = d.validateObject(x, s, depth)
	}
	if m != "" {
		return p, m
	}
	return d.validateApplicators(v, s, depth)
}

// validateApplicators checks the keywords that apply subschemas to the
// value itself: allOf, anyOf, oneOf, not, if/then/else.
func (d *document) validateApplicators(v any, s map[string]any, depth int) (string, string) {
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			if p, m := d.validate(v, sub, depth+1); m != "" {
				return p, m
			}
		}
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		first, firstPath := "", ""
		matched := false
		for _, sub := range anyOf {
			p, m := d.validate(v, sub, depth+1)
			if m == "" {
				matched = true
				break
			}
			if first == "" {
				first, firstPath = m, p
			}
		}
		if !matched {
			return "", fmt.Sprintf("matches none of the %d anyOf schemas (the first: at %s: %s)", len(anyOf), "$"+firstPath, first)
		}
	}
	if oneOf, ok := s["oneOf"].([]any); ok {
		var matches []string
		first, firstPath := "", ""
		for i, sub := range oneOf {
			p, m := d.validate(v, sub, depth+1)
			if m == "" {
				matches = append(matches, strconv.Itoa(i))
			} else if first == "" {
				first, firstPath = m, p
			}
		}
		switch len(matches) {
		case 1:
		case 0:
			return "", fmt.Sprintf("matches none of the %d oneOf schemas (the first: at %s: %s)", len(oneOf), "$"+firstPath, first)
		default:
			return "", fmt.Sprintf("matches %d of the oneOf schemas (%s), want exactly one", len(matches), strings.Join(matches, ", "))
		}
	}
	if not, ok := s["not"]; ok {
		if _, m := d.validate(v, not, depth+1); m == "" {
			return "", fmt.Sprintf("%s matches the schema it must not (not: %s)", short(v), short(not))
		}
	}
	if cond, ok := s["if"]; ok {
		branch := "else"
		if _, m := d.validate(v, cond, depth+1); m == "" {
			branch = "then"
		}
		if sub, ok := s[branch]; ok {
			if p, m := d.validate(v, sub, depth+1); m != "" {
				return p, m
			}
		}
	}
	for _, k := range []string{"unevaluatedItems", "$dynamicRef"} {
		if _, ok := s[k]; ok {
			return "", fmt.Sprintf("the schema uses %s, which plinthtest cannot check: not checked", k)
		}
	}
	if ue, ok := s["unevaluatedProperties"]; ok {
		if x, isObj := v.(map[string]any); isObj {
			seen := map[string]bool{}
			d.evaluated(x, s, seen, depth+1, true)
			for _, k := range sortedNames(x) {
				if seen[k] {
					continue
				}
				if b, isBool := ue.(bool); isBool && !b {
					return member(k), "member not in the schema (unevaluatedProperties is false)"
				}
				if p, m := d.validate(x[k], ue, depth+1); m != "" {
					return member(k) + p, m
				}
			}
		}
	}
	return "", ""
}

// evaluated adds to seen the members of x that s (which x passes)
// evaluates, for unevaluatedProperties: those its properties,
// patternProperties and additionalProperties reach, and those of the
// subschemas that apply (allOf, the anyOf and oneOf ones x passes, if and
// its branch, dependentSchemas, $ref, and an unevaluatedProperties below
// the top schema).
func (d *document) evaluated(x map[string]any, schema any, seen map[string]bool, depth int, top bool) {
	s, ok := schema.(map[string]any)
	if !ok || depth > maxSchemaDepth {
		return
	}
	if ref, ok := s["$ref"].(string); ok {
		if target, found := d.pointer(ref); found {
			d.evaluated(x, target, seen, depth+1, false)
		}
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	_, ap := s["additionalProperties"]
	_, ue := s["unevaluatedProperties"]
	for k := range x {
		if _, ok := props[k]; ok || ap || ue && !top {
			seen[k] = true
			continue
		}
		for pat := range patterns {
			if re := d.regexp(pat); re != nil && re.MatchString(k) {
				seen[k] = true
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			d.evaluated(x, sub, seen, depth+1, false)
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		list, _ := s[key].([]any)
		for _, sub := range list {
			if _, m := d.validate(x, sub, depth+1); m == "" {
				d.evaluated(x, sub, seen, depth+1, false)
			}
		}
	}
	if cond, ok := s["if"]; ok {
		if _, m := d.validate(x, cond, depth+1); m == "" {
			d.evaluated(x, cond, seen, depth+1, false)
			d.evaluated(x, s["then"], seen, depth+1, false)
		} else {
			d.evaluated(x, s["else"], seen, depth+1, false)
		}
	}
	if ds, ok := s["dependentSchemas"].(map[string]any); ok {
		for k, sub := range ds {
			if _, present := x[k]; present {
				d.evaluated(x, sub, seen, depth+1, false)
			}
		}
	}
}

// sortedNames returns the member names of x, sorted.
func sortedNames(x map[string]any) []string {
	names := make([]string, 0, len(x))
	for k := range x {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func (d *document) validateNumber(x json.Number, s map[string]any) (string, string) {
	_, m1 := s["multipleOf"]
	_, m2 := s["minimum"]
	_, m3 := s["maximum"]
	_, m4 := s["exclusiveMinimum"]
	_, m5 := s["exclusiveMaximum"]
	if !m1 && !m2 && !m3 && !m4 && !m5 {
		return "", "" // no bound: no exact value needed
	}
	r := numberRat(x)
	if r == nil {
		return "", fmt.Sprintf("%s is not a number plinthtest can compare", x)
	}
	if n, ok := s["multipleOf"]; ok {
		if m := numberRat(n); m != nil && m.Sign() > 0 && !new(big.Rat).Quo(r, m).IsInt() {
			return "", fmt.Sprintf("%s is not a multiple of %s", x, short(n))
		}
	}
	bounds := []struct {
		key  string
		fail func(c int) bool
		msg  string
	}{
		{"minimum", func(c int) bool { return c < 0 }, "is below the minimum"},
		{"maximum", func(c int) bool { return c > 0 }, "is above the maximum"},
		{"exclusiveMinimum", func(c int) bool { return c <= 0 }, "is not above the exclusive minimum"},
		{"exclusiveMaximum", func(c int) bool { return c >= 0 }, "is not below the exclusive maximum"},
	}
	for i, b := range bounds {
		n, ok := s[b.key]
		if !ok {
			continue
		}
		if i < 2 && d.v30 {
			if excl, _ := s[bounds[i+2].key].(bool); excl {
				b = bounds[i+2] // OpenAPI 3.0: exclusiveMinimum: true makes minimum exclusive
			}
		}
		if m := numberRat(n); m != nil && b.fail(r.Cmp(m)) {
			return "", fmt.Sprintf("%s %s %s", x, b.msg, short(n))
		}
	}
	return "", ""
}

func (d *document) validateString(x string, s map[string]any) (string, string) {
	n := -1
	if m, ok := count(s, "minLength"); ok {
		n = utf8.RuneCountInString(x)
		if n < m {
			return "", fmt.Sprintf("%s is shorter than %d characters (%d)", short(x), m, n)
		}
	}
	if m, ok := count(s, "maxLength"); ok {
		if n < 0 {
			n = utf8.RuneCountInString(x)
		}
		if n > m {
			return "", fmt.Sprintf("%s is longer than %d characters (%d)", short(x), m, n)
		}
	}
	if p, ok := s["pattern"].(string); ok {
		re := d.regexp(p)
		if re == nil {
			return "", fmt.Sprintf("the pattern %s is not one Go's regexp can compile: not checked", p)
		}
		if !re.MatchString(x) {
			return "", fmt.Sprintf("%s does not match the pattern %s", short(x), p)
		}
	}
	if f, ok := s["format"].(string); ok {
		if why := checkFormat(f, x); why != "" {
			return "", fmt.Sprintf("%s is not a valid %s: %s", short(x), f, why)
		}
	}
	return "", ""
}

func (d *document) validateArray(x []any, s map[string]any, depth int) (string, string) {
	if m, ok := count(s, "minItems"); ok && len(x) < m {
		return "", fmt.Sprintf("%d items, fewer than %d", len(x), m)
	}
	if m, ok := count(s, "maxItems"); ok && len(x) > m {
		return "", fmt.Sprintf("%d items, more than %d", len(x), m)
	}
	if u, _ := s["uniqueItems"].(bool); u {
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if jsonEqual(x[i], x[j]) {
					return "[" + strconv.Itoa(j) + "]", fmt.Sprintf("%s repeats item %d (uniqueItems)", short(x[j]), i)
				}
			}
		}
	}
	prefix, _ := s["prefixItems"].([]any)
	for i, sub := range prefix {
		if i >= len(x) {
			break
		}
		if p, m := d.validate(x[i], sub, depth+1); m != "" {
			return "[" + strconv.Itoa(i) + "]" + p, m
		}
	}
	if items, ok := s["items"]; ok {
		for i := len(prefix); i < len(x); i++ {
			if p, m := d.validate(x[i], items, depth+1); m != "" {
				return "[" + strconv.Itoa(i) + "]" + p, m
			}
		}
	}
	if contains, ok := s["contains"]; ok {
		n := 0
		for _, it := range x {
			if _, m := d.validate(it, contains, depth+1); m == "" {
				n++
			}
		}
		lo, hasLo := count(s, "minContains")
		if !hasLo {
			lo = 1
		}
		if n < lo {
			return "", fmt.Sprintf("%d items match contains, fewer than %d", n, lo)
		}
		if hi, ok := count(s, "maxContains"); ok && n > hi {
			return "", fmt.Sprintf("%d items match contains, more than %d", n, hi)
		}
	}
	return "", ""
}

func (d *document) validateObject(x map[string]any, s map[string]any, depth int) (string, string) {
	if m, ok := count(s, "minProperties"); ok && len(x) < m {
		return "", fmt.Sprintf("%d members, fewer than %d", len(x), m)
	}
	if m, ok := count(s, "maxProperties"); ok && len(x) > m {
		return "", fmt.Sprintf("%d members, more than %d", len(x), m)
	}
	if req, ok := s["required"].([]any); ok {
		for _, name := range req {
			if n, ok := name.(string); ok {
				if _, ok := x[n]; !ok {
					return member(n), "required member missing"
				}
			}
		}
	}
	names := make([]string, 0, len(x))
	for k := range x {
		names = append(names, k)
	}
	sort.Strings(names) // the first mismatch is the same at every run
	if dr, ok := s["dependentRequired"].(map[string]any); ok {
		for _, k := range names {
			list, _ := dr[k].([]any)
			for _, name := range list {
				if n, ok := name.(string); ok {
					if _, ok := x[n]; !ok {
						return member(n), fmt.Sprintf("required member missing (dependentRequired: %s is present)", k)
					}
				}
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	patternKeys := make([]string, 0, len(patterns))
	for k := range patterns {
		patternKeys = append(patternKeys, k)
	}
	sort.Strings(patternKeys)
	ap, hasAP := s["additionalProperties"]
	pn, hasPN := s["propertyNames"]
	for _, k := range names {
		if hasPN {
			if _, m := d.validate(k, pn, depth+1); m != "" {
				return member(k), "the member's name: " + m
			}
		}
		ps, listed := props[k]
		if listed {
			if p, m := d.validate(x[k], ps, depth+1); m != "" {
				return member(k) + p, m
			}
		}
		for _, pat := range patternKeys {
			re := d.regexp(pat)
			if re == nil {
				return member(k), fmt.Sprintf("the patternProperties pattern %s is not one Go's regexp can compile: not checked", pat)
			}
			if re.MatchString(k) {
				listed = true
				if p, m := d.validate(x[k], patterns[pat], depth+1); m != "" {
					return member(k) + p, m
				}
			}
		}
		if !listed && hasAP {
			if b, isBool := ap.(bool); isBool && !b {
				return member(k), "member not in the schema (additionalProperties is false)"
			}
			if p, m := d.validate(x[k], ap, depth+1); m != "" {
				return member(k) + p, m
			}
		}
	}
	if ds, ok := s["dependentSchemas"].(map[string]any); ok {
		for _, k := range names {
			if sub, ok := ds[k]; ok {
				if p, m := d.validate(x, sub, depth+1); m != "" {
					return p, m
				}
			}
		}
	}
	return "", ""
}

// member is the JSON path step to the member k: .k for a name of letters,
// digits and underscores, ["k"] for another.
func member(k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	b, _ := json.Marshal(k)
	return "[" + string(b) + "]"
}

// regexp compiles a schema's pattern once; nil for one Go's RE2 cannot
// compile.
func (d *document) regexp(p string) *regexp.Regexp {
	d.mu.Lock()
	defer d.mu.Unlock()
	re, ok := d.res[p]
	if !ok {
		re, _ = regexp.Compile(p)
		d.res[p] = re
	}
	return re
}

// typeMatches reports whether the JSON type got is one that the type
// keyword t names (an integer is a number).
func typeMatches(t any, got string) bool {
	switch x := t.(type) {
	case string:
		return got == x || x == "number" && got == "integer"
	case []any:
		for _, e := range x {
			if want, _ := e.(string); got == want || want == "number" && got == "integer" {
				return true
			}
		}
	}
	return false
}

// typeNames reads the type keyword: a name or a list of names.
func typeNames(t any) []string {
	switch x := t.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// count reads a keyword whose value is a non-negative integer.
func count(s map[string]any, key string) (int, bool) {
	r := numberRat(s[key])
	if r == nil || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	n := r.Num().Int64()
	if n < 0 || n > 1<<31 {
		return 0, false
	}
	return int(n), true
}

// numberRat returns the exact value of a JSON number (json.Number, or a
// float64 or int from elsewhere), nil for anything else or for a number
// whose exponent is beyond ±10000 (which no JSON encoder writes).
func numberRat(v any) *big.Rat {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case float64:
		return new(big.Rat).SetFloat64(x)
	case int:
		return new(big.Rat).SetInt64(int64(x))
	default:
		return nil
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 10000 || e < -10000 {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

// jsonType names the JSON type of v (decoded with UseNumber): a number
// with an integer value (1.0, 1e2 included) is an integer, as JSON Schema
// says.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			return "integer" // digits only: no exact value needed
		}
		if r := numberRat(x); r != nil && r.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares two JSON values as JSON Schema does: numbers by
// value (1 equals 1.0), arrays item by item, objects member by member.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number, float64, int:
		ra, rb := numberRat(a), numberRat(b)
		return ra != nil && rb != nil && ra.Cmp(rb) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}
