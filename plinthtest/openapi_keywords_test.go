package plinthtest

import (
	"encoding/json"
	"strings"
	"testing"
)

// keywordDoc is the document the keyword cases resolve references in.
const keywordDoc = `{"openapi":"3.1.0","paths":{},"components":{"schemas":{
 "Named":{"type":"object","properties":{"a":{"type":"integer"}}},
 "Str":{"type":"string"},
 "Loop":{"$ref":"#/components/schemas/Loop"},
 "a/b":{"type":"string"},
 "t~x":{"type":"string"},
 "Arr":{"prefixItems":[{"type":"integer"},{"type":"string"}]}}}}`

// validateCase runs one schema case: body against schema in doc, the
// result as "at $path: message", or "".
func validateCase(t *testing.T, d *document, schema, body string) string {
	t.Helper()
	s, err := decodeJSON([]byte(schema))
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	v, err := decodeJSON([]byte(body))
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	p, msg := d.validate(v, s, 0)
	if msg == "" {
		if p != "" {
			t.Errorf("%s against %s: a path %q without a message", body, schema, p)
		}
		return ""
	}
	return "at $" + p + ": " + msg
}

type keywordCase struct {
	name, schema, body string
	want               string // "" passes, else in "at $path: message"
}

func runKeywordCases(t *testing.T, d *document, cases []keywordCase) {
	t.Helper()
	for _, tc := range cases {
		got := validateCase(t, d, tc.schema, tc.body)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s against %s: %q, want %q", tc.name, tc.body, tc.schema, got, tc.want)
		}
	}
}

// TestSchemaKeywords checks each keyword with an instance just inside its
// bound, which passes, and one just outside, which fails naming the
// keyword's bound and the JSON path.
func TestSchemaKeywords(t *testing.T) {
	d, err := parseDocument([]byte(keywordDoc))
	if err != nil {
		t.Fatal(err)
	}
	runKeywordCases(t, d, []keywordCase{
		// boolean and empty schemas
		{"true", `true`, `{"a":1}`, ""},
		{"false", `false`, `1`, "at $: no value is allowed here (the schema is false)"},
		{"not a schema", `3`, `1`, "the schema is 3, not an object or a boolean"},
		{"empty", `{}`, `[1,"a",null]`, ""},
		// type
		{"string", `{"type":"string"}`, `"a"`, ""},
		{"string for a number", `{"type":"string"}`, `1.5`, "at $: number 1.5, want string"},
		{"boolean", `{"type":"boolean"}`, `true`, ""},
		{"boolean for a string", `{"type":"boolean"}`, `"true"`, `string "true", want boolean`},
		{"array", `{"type":"array"}`, `[]`, ""},
		{"array for an object", `{"type":"array"}`, `{}`, "object {}, want array"},
		{"object for an array", `{"type":"object"}`, `[]`, "array [], want object"},
		{"null", `{"type":"null"}`, `null`, ""},
		{"false for null", `{"type":"null"}`, `false`, "boolean false, want null"},
		{"integer is a number", `{"type":"number"}`, `3`, ""},
		{"number is no integer", `{"type":"integer"}`, `3.5`, "number 3.5, want integer"},
		{"1e2 is an integer", `{"type":"integer"}`, `1e2`, ""},
		{"1.5e1 is an integer", `{"type":"integer"}`, `1.5e1`, ""},
		{"1.5e0 is not", `{"type":"integer"}`, `1.5e0`, "want integer"},
		{"integer in a list with number", `{"type":["string","number"]}`, `3`, ""},
		{"list without the type", `{"type":["string","boolean"]}`, `3`, "integer 3, want string or boolean"},
		{"list skips non-names", `{"type":[1,"string"]}`, `3`, "integer 3, want string"},
		{"nullable is 3.0's", `{"type":"string","nullable":true}`, `null`, "null, want string"},
		// enum and const
		{"enum", `{"enum":["a",2,null,true,[1],{"k":"v"}]}`, `2.0`, ""},
		{"enum string", `{"enum":["a","b"]}`, `"b"`, ""},
		{"enum miss", `{"enum":["a","b"]}`, `"c"`, `at $: "c" is not one of ["a","b"]`},
		{"enum null", `{"enum":[null]}`, `null`, ""},
		{"enum null miss", `{"enum":[null]}`, `false`, "is not one of"},
		{"enum bool", `{"enum":[true]}`, `true`, ""},
		{"enum bool miss", `{"enum":[true]}`, `false`, "is not one of"},
		{"enum bool not 1", `{"enum":[true]}`, `1`, "is not one of"},
		{"enum string not bool", `{"enum":["true"]}`, `true`, "is not one of"},
		{"enum array", `{"enum":[[1,"a"]]}`, `[1.0,"a"]`, ""},
		{"enum array order", `{"enum":[[1,"a"]]}`, `["a",1]`, "is not one of"},
		{"enum array length", `{"enum":[[1,"a"]]}`, `[1,"a",2]`, "is not one of"},
		{"enum array for object", `{"enum":[[1]]}`, `{"0":1}`, "is not one of"},
		{"enum object", `{"enum":[{"a":1,"b":[true]}]}`, `{"b":[true],"a":1}`, ""},
		{"enum object value", `{"enum":[{"a":1}]}`, `{"a":2}`, "is not one of"},
		{"enum object member", `{"enum":[{"a":1}]}`, `{"b":1}`, "is not one of"},
		{"enum object size", `{"enum":[{"a":1}]}`, `{"a":1,"b":1}`, "is not one of"},
		{"enum object for array", `{"enum":[{}]}`, `[]`, "is not one of"},
		{"enum number for string", `{"enum":[1]}`, `"1"`, "is not one of"},
		{"const", `{"const":"x"}`, `"x"`, ""},
		{"const miss", `{"const":"x"}`, `"y"`, `at $: "y", want "x"`},
		{"const number", `{"const":1.50}`, `1.5`, ""},
		{"const null", `{"const":null}`, `null`, ""},
		{"const null miss", `{"const":null}`, `0`, "0, want null"},
		// numbers
		{"minimum at", `{"minimum":5}`, `5`, ""},
		{"minimum below", `{"minimum":5}`, `4.999`, "at $: 4.999 is below the minimum 5"},
		{"maximum at", `{"maximum":5}`, `5`, ""},
		{"maximum above", `{"maximum":5}`, `5.001`, "5.001 is above the maximum 5"},
		{"exclusiveMinimum above", `{"exclusiveMinimum":5}`, `5.001`, ""},
		{"exclusiveMinimum at", `{"exclusiveMinimum":5}`, `5`, "5 is not above the exclusive minimum 5"},
		{"exclusiveMaximum below", `{"exclusiveMaximum":5}`, `4.999`, ""},
		{"exclusiveMaximum at", `{"exclusiveMaximum":5}`, `5`, "5 is not below the exclusive maximum 5"},
		{"only multipleOf", `{"multipleOf":3}`, `9`, ""},
		{"only multipleOf miss", `{"multipleOf":3}`, `10`, "10 is not a multiple of 3"},
		{"multipleOf zero is ignored", `{"multipleOf":0}`, `10`, ""},
		{"multipleOf negative is ignored", `{"multipleOf":-3}`, `10`, ""},
		{"a bound on a non-number", `{"minimum":5}`, `"a"`, ""},
		{"a bound that is no number", `{"minimum":"5"}`, `1`, ""},
		{"an exponent beyond", `{"maximum":5}`, `1e10001`, "is not a number plinthtest can compare"},
		{"an exponent at", `{"maximum":5}`, `1e-10000`, ""},
		{"a negative exponent beyond", `{"maximum":5}`, `1e-10001`, "is not a number plinthtest can compare"},
		{"a plus exponent", `{"maximum":5}`, `1e+0`, ""},
		{"a big exponent above", `{"maximum":5}`, `1E+10000`, "is above the maximum"},
		// strings, in code points
		{"minLength at", `{"minLength":2}`, `"éé"`, ""},
		{"minLength below", `{"minLength":2}`, `"é"`, `at $: "é" is shorter than 2 characters (1)`},
		{"maxLength at", `{"maxLength":2}`, `"éé"`, ""},
		{"maxLength above", `{"maxLength":2}`, `"ééé"`, `"ééé" is longer than 2 characters (3)`},
		{"both lengths at", `{"minLength":2,"maxLength":2}`, `"ab"`, ""},
		{"both lengths above", `{"minLength":2,"maxLength":2}`, `"abc"`, "longer than 2 characters (3)"},
		{"a length on a number", `{"maxLength":1}`, `123`, ""},
		{"minLength negative is ignored", `{"minLength":-1,"maxLength":0}`, `""`, ""},
		{"maxLength fraction is ignored", `{"maxLength":1.5}`, `"abc"`, ""},
		{"minLength 2^31", `{"minLength":2147483648}`, `"abc"`, "shorter than 2147483648 characters"},
		{"minLength beyond 2^31 is ignored", `{"minLength":2147483649}`, `"abc"`, ""},
		{"minLength beyond int64 is ignored", `{"minLength":1e30}`, `"abc"`, ""},
		{"maxLength 0", `{"maxLength":0}`, `"a"`, "longer than 0 characters (1)"},
		{"maxLength 0 empty", `{"maxLength":0}`, `""`, ""},
		{"maxLength negative is ignored", `{"maxLength":-1}`, `"a"`, ""},
		{"maxLength 1.0", `{"maxLength":1.0}`, `"ab"`, "longer than 1"},
		{"pattern", `{"pattern":"^a+$"}`, `"aaa"`, ""},
		{"pattern miss", `{"pattern":"^a+$"}`, `"aab"`, `"aab" does not match the pattern ^a+$`},
		{"pattern unanchored", `{"pattern":"b"}`, `"aab"`, ""},
		{"format", `{"format":"date"}`, `"2024-01-01"`, ""},
		{"format miss", `{"format":"date"}`, `"2024-01-32"`, `"2024-01-32" is not a valid date: not a calendar date`},
		// arrays
		{"minItems at", `{"minItems":2}`, `[1,2]`, ""},
		{"minItems below", `{"minItems":2}`, `[1]`, "at $: 1 items, fewer than 2"},
		{"maxItems at", `{"maxItems":2}`, `[1,2]`, ""},
		{"maxItems above", `{"maxItems":2}`, `[1,2,3]`, "3 items, more than 2"},
		{"uniqueItems", `{"uniqueItems":true}`, `[1,2,"1",[1],[2]]`, ""},
		{"uniqueItems repeat", `{"uniqueItems":true}`, `[1,2,3,[1],3]`, "at $[4]: 3 repeats item 2 (uniqueItems)"},
		{"uniqueItems first two", `{"uniqueItems":true}`, `[1,1]`, "at $[1]: 1 repeats item 0"},
		{"uniqueItems false", `{"uniqueItems":false}`, `[1,1]`, ""},
		{"items", `{"items":{"type":"integer"}}`, `[1,2,3]`, ""},
		{"items last", `{"items":{"type":"integer"}}`, `[1,2,"c"]`, `at $[2]: string "c", want integer`},
		{"items first", `{"items":{"type":"integer"}}`, `["a"]`, `at $[0]: string`},
		{"items nested path", `{"items":{"items":{"type":"integer"}}}`, `[[1],[2,"x"]]`, `at $[1][1]: string "x"`},
		{"prefixItems", `{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, `["a",1]`, ""},
		{"prefixItems shorter", `{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, `["a"]`, ""},
		{"prefixItems second", `{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, `["a","b"]`, `at $[1]: string "b", want integer`},
		{"prefixItems nested path", `{"prefixItems":[{"items":{"type":"integer"}}]}`, `[[1,"x"]]`, `at $[0][1]: string`},
		{"items after prefixItems", `{"prefixItems":[{"type":"string"}],"items":false}`, `["a",1]`, "at $[1]: no value is allowed"},
		{"contains one", `{"contains":{"type":"string"}}`, `[1,"a"]`, ""},
		{"contains none", `{"contains":{"type":"string"}}`, `[1,2]`, "at $: 0 items match contains, fewer than 1"},
		{"minContains at", `{"contains":{"type":"string"},"minContains":2}`, `["a",1,"b"]`, ""},
		{"minContains below", `{"contains":{"type":"string"},"minContains":2}`, `["a",1]`, "1 items match contains, fewer than 2"},
		{"minContains 0", `{"contains":{"type":"string"},"minContains":0}`, `[1]`, ""},
		{"maxContains at", `{"contains":{"type":"string"},"maxContains":2}`, `["a","b",1]`, ""},
		{"maxContains above", `{"contains":{"type":"string"},"maxContains":2}`, `["a","b","c"]`, "3 items match contains, more than 2"},
		{"array keywords on an object", `{"minItems":1}`, `{}`, ""},
		// objects
		{"minProperties at", `{"minProperties":2}`, `{"a":1,"b":2}`, ""},
		{"minProperties below", `{"minProperties":2}`, `{"a":1}`, "at $: 1 members, fewer than 2"},
		{"maxProperties at", `{"maxProperties":2}`, `{"a":1,"b":2}`, ""},
		{"maxProperties above", `{"maxProperties":2}`, `{"a":1,"b":2,"c":3}`, "3 members, more than 2"},
		{"required", `{"required":["a","b"]}`, `{"a":1,"b":null}`, ""},
		{"required missing", `{"required":["a","b"]}`, `{"a":1}`, "at $.b: required member missing"},
		{"required non-name ignored", `{"required":[1]}`, `{}`, ""},
		{"required on an array", `{"required":["a"]}`, `[]`, ""},
		{"properties", `{"properties":{"a":{"type":"integer"}}}`, `{"a":1,"b":"x"}`, ""},
		{"properties miss", `{"properties":{"a":{"type":"integer"}}}`, `{"a":"x"}`, `at $.a: string "x", want integer`},
		{"properties nested path", `{"properties":{"a":{"properties":{"b":{"type":"integer"}}}}}`, `{"a":{"b":true}}`, `at $.a.b: boolean true`},
		{"properties odd name", `{"properties":{"a b":{"type":"integer"}}}`, `{"a b":"x"}`, `at $["a b"]: string`},
		{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}`, `{"a":"x","b":2}`, ""},
		{"additionalProperties schema miss", `{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}`, `{"a":"x","b":"y"}`, `at $.b: string "y", want integer`},
		{"additionalProperties nested path", `{"additionalProperties":{"items":{"type":"integer"}}}`, `{"b":[1,"y"]}`, `at $.b[1]: string`},
		{"additionalProperties true", `{"additionalProperties":true}`, `{"b":"y"}`, ""},
		{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"z":2}`, "at $.z: member not in the schema (additionalProperties is false)"},
		{"patternProperties", `{"patternProperties":{"^x":{"type":"integer"},"y$":{"type":"integer"}}}`, `{"xy":1,"a":"s"}`, ""},
		{"patternProperties second", `{"patternProperties":{"^x":{"type":"integer"},"y$":{"minimum":5}}}`, `{"xy":4}`, "at $.xy: 4 is below the minimum 5"},
		{"patternProperties nested path", `{"patternProperties":{"^x":{"items":{"type":"integer"}}}}`, `{"xa":[1,"q"]}`, `at $.xa[1]: string`},
		{"patternProperties bad pattern", `{"patternProperties":{"(?=x)":{}}}`, `{"a":1}`, "at $.a: the patternProperties pattern (?=x) is not one Go's regexp can compile"},
		{"propertyNames", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"ab":1,"cd":2}`, ""},
		{"propertyNames miss", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"ab":1,"c_d":2}`, `at $.c_d: the member's name: "c_d" does not match`},
		{"dependentRequired", `{"dependentRequired":{"a":["b","c"]}}`, `{"a":1,"b":1,"c":1}`, ""},
		{"dependentRequired absent", `{"dependentRequired":{"a":["b"]}}`, `{"b":1}`, ""},
		{"dependentRequired second", `{"dependentRequired":{"a":["b","c"]}}`, `{"a":1,"b":1}`, "at $.c: required member missing (dependentRequired: a is present)"},
		{"dependentSchemas", `{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":1,"b":2}`, ""},
		{"dependentSchemas absent", `{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"c":1}`, ""},
		{"dependentSchemas miss", `{"dependentSchemas":{"a":{"properties":{"b":{"type":"string"}}}}}`, `{"a":1,"b":2}`, `at $.b: integer 2, want string`},
		{"object keywords on a string", `{"required":["a"],"minProperties":1}`, `"s"`, ""},
		// applicators
		{"allOf", `{"allOf":[{"minimum":1},{"maximum":3}]}`, `2`, ""},
		{"allOf second", `{"allOf":[{"minimum":1},{"maximum":3}]}`, `4`, "4 is above the maximum 3"},
		{"allOf path", `{"allOf":[{"properties":{"a":{"type":"string"}}}]}`, `{"a":1}`, "at $.a: integer 1"},
		{"anyOf second", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1`, ""},
		{"anyOf none names the first", `{"anyOf":[{"properties":{"a":{"type":"string"}}},{"type":"integer"}]}`, `{"a":1}`,
			"at $: matches none of the 2 anyOf schemas (the first: at $.a: integer 1, want string)"},
		{"oneOf none names the first", `{"oneOf":[{"properties":{"a":{"type":"string"}}},{"type":"integer"}]}`, `{"a":1}`,
			"at $: matches none of the 2 oneOf schemas (the first: at $.a: integer 1, want string)"},
		{"oneOf second", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `1`, ""},
		{"oneOf three", `{"oneOf":[{"type":"number"},{"type":"integer"},{"minimum":0}]}`, `1`, "matches 3 of the oneOf schemas (0, 1, 2), want exactly one"},
		{"not", `{"not":{"type":"string"}}`, `1`, ""},
		{"not miss", `{"not":{"type":"string"}}`, `"a"`, `at $: "a" matches the schema it must not (not: {"type":"string"})`},
		{"if else", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":5}}`, `4`, "4 is below the minimum 5"},
		{"if else passes", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":5}}`, `5`, ""},
		{"if then", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":5}}`, `"a"`, "shorter than 2"},
		{"if then path", `{"if":{"required":["a"]},"then":{"properties":{"a":{"type":"string"}}}}`, `{"a":1}`, "at $.a: integer 1"},
		{"if then passes", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":5}}`, `"ab"`, ""},
		{"if without branches", `{"if":{"type":"string"}}`, `1`, ""},
		{"$dynamicRef", `{"$dynamicRef":"#x"}`, `1`, "the schema uses $dynamicRef, which plinthtest cannot check"},
		// $ref
		{"$ref", `{"$ref":"#/components/schemas/Named"}`, `{"a":1}`, ""},
		{"$ref path", `{"$ref":"#/components/schemas/Named"}`, `{"a":"x"}`, `at $.a: string "x", want integer`},
		{"$ref and a sibling", `{"$ref":"#/components/schemas/Str","minLength":2}`, `"a"`, "shorter than 2"},
		{"$ref loop", `{"$ref":"#/components/schemas/Loop"}`, `1`, "the schema nests deeper than 512 levels: not checked"},
		{"$ref to the root", `{"$ref":"#"}`, `{"openapi":1}`, ""},
		{"$ref not local", `{"$ref":"other.json#/x"}`, `1`, "points to nothing"},
		{"$ref not a pointer", `{"$ref":"#x"}`, `1`, "points to nothing"},
		{"$ref ~1", `{"$ref":"#/components/schemas/a~1b"}`, `1`, "want string"},
		{"$ref ~0", `{"$ref":"#/components/schemas/t~0x"}`, `1`, "want string"},
		{"$ref array index", `{"$ref":"#/components/schemas/Arr/prefixItems/1"}`, `1`, "want string"},
		{"$ref array first", `{"$ref":"#/components/schemas/Arr/prefixItems/0"}`, `"a"`, "want integer"},
		{"$ref array past the end", `{"$ref":"#/components/schemas/Arr/prefixItems/2"}`, `1`, "points to nothing"},
		{"$ref array negative", `{"$ref":"#/components/schemas/Arr/prefixItems/-1"}`, `1`, "points to nothing"},
		{"$ref array name", `{"$ref":"#/components/schemas/Arr/prefixItems/x"}`, `1`, "points to nothing"},
		{"$ref into a string", `{"$ref":"#/components/schemas/Str/type/x"}`, `1`, "points to nothing"},
		{"$ref percent-encoded", `{"$ref":"#/components/schemas/%53tr"}`, `1`, "want string"},
	})
}

// TestSchemaDepth: a schema of exactly maxSchemaDepth levels is checked, one
// level more fails as unchecked rather than passing.
func TestSchemaDepth(t *testing.T) {
	nest := func(levels int) any {
		var s any = map[string]any{"type": "string"}
		for range levels {
			s = map[string]any{"allOf": []any{s}}
		}
		return s
	}
	doc, _ := parseDocument([]byte(`{"paths":{}}`))
	if _, msg := doc.validate("x", nest(maxSchemaDepth), 0); msg != "" {
		t.Errorf("%d levels: %s", maxSchemaDepth, msg)
	}
	if _, msg := doc.validate(json.Number("1"), nest(maxSchemaDepth), 0); !strings.Contains(msg, "want string") {
		t.Errorf("%d levels, a wrong value: %q", maxSchemaDepth, msg)
	}
	if _, msg := doc.validate("x", nest(maxSchemaDepth+1), 0); !strings.Contains(msg, "nests deeper than 512 levels") {
		t.Errorf("%d levels: %q, want unchecked", maxSchemaDepth+1, msg)
	}
}

// TestUnevaluatedProperties: the members that the schema's keywords and
// the subschemas that apply evaluate pass; any other meets
// unevaluatedProperties.
func TestUnevaluatedProperties(t *testing.T) {
	d, err := parseDocument([]byte(keywordDoc))
	if err != nil {
		t.Fatal(err)
	}
	const ifThenElse = `{"if":{"properties":{"k":{"const":1}},"required":["k"]},"then":{"properties":{"t":{}}},"else":{"properties":{"e":{}}},"unevaluatedProperties":false}`
	const anyOf = `{"anyOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"type":"integer"}}}],"unevaluatedProperties":false}`
	const oneOf = `{"oneOf":[{"properties":{"a":{"type":"integer"}},"required":["a"]},{"required":["c"]}],"unevaluatedProperties":false}`
	const dependent = `{"properties":{"a":{}},"dependentSchemas":{"a":{"properties":{"b":{}}}},"unevaluatedProperties":false}`
	runKeywordCases(t, d, []keywordCase{
		{"none", `{"unevaluatedProperties":false}`, `{}`, ""},
		{"top's own", `{"unevaluatedProperties":false}`, `{"b":1,"a":1}`, "at $.a: member not in the schema (unevaluatedProperties is false)"},
		{"not an object", `{"unevaluatedProperties":false}`, `[1]`, ""},
		{"properties", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1}`, ""},
		{"properties other", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":1}`, "at $.b: member not in the schema"},
		{"additionalProperties", `{"additionalProperties":{"type":"integer"},"unevaluatedProperties":false}`, `{"b":1}`, ""},
		{"patternProperties", `{"patternProperties":{"^x":{}},"unevaluatedProperties":false}`, `{"xa":1}`, ""},
		{"patternProperties other", `{"patternProperties":{"^x":{}},"unevaluatedProperties":false}`, `{"xa":1,"ya":1}`, "at $.ya"},
		{"a nested unevaluatedProperties", `{"allOf":[{"unevaluatedProperties":true}],"unevaluatedProperties":false}`, `{"b":1}`, ""},
		{"allOf", `{"allOf":[{"properties":{"a":{}}},{"properties":{"b":{}}}],"unevaluatedProperties":false}`, `{"a":1,"b":1}`, ""},
		{"$ref", `{"$ref":"#/components/schemas/Named","unevaluatedProperties":false}`, `{"a":1}`, ""},
		{"$ref other", `{"$ref":"#/components/schemas/Named","unevaluatedProperties":false}`, `{"a":1,"b":1}`, "at $.b"},
		{"anyOf both", anyOf, `{"a":1,"b":2}`, ""},
		{"anyOf failed one", anyOf, `{"a":1,"b":"x"}`, "at $.b: member not in the schema"},
		{"oneOf", oneOf, `{"a":1}`, ""},
		{"oneOf other", oneOf, `{"c":1}`, "at $.c: member not in the schema"},
		{"if then", ifThenElse, `{"k":1,"t":1}`, ""},
		{"if then, else's", ifThenElse, `{"k":1,"e":1}`, "at $.e: member not in the schema"},
		{"if else", ifThenElse, `{"e":1}`, ""},
		{"if else, the failed if's", ifThenElse, `{"k":2,"e":1}`, "at $.k: member not in the schema"},
		{"dependentSchemas", dependent, `{"a":1,"b":1}`, ""},
		{"dependentSchemas absent", dependent, `{"b":1}`, "at $.b: member not in the schema"},
		{"a schema", `{"unevaluatedProperties":{"type":"integer"}}`, `{"a":1}`, ""},
		{"a schema miss", `{"unevaluatedProperties":{"type":"integer"}}`, `{"a":1,"b":"x"}`, `at $.b: string "x", want integer`},
		{"a schema nested path", `{"unevaluatedProperties":{"items":{"type":"integer"}}}`, `{"a":[1,"x"]}`, `at $.a[1]: string`},
		{"true", `{"unevaluatedProperties":true}`, `{"a":1}`, ""},
		{"unevaluatedItems", `{"unevaluatedItems":false}`, `[]`, "the schema uses unevaluatedItems, which plinthtest cannot check"},
	})
}

// TestOpenAPI30Bounds: in a 3.0 document, exclusiveMinimum and
// exclusiveMaximum are booleans that make minimum and maximum exclusive,
// and nullable: true lets null pass the type; 3.1's numeric forms still
// work.
func TestOpenAPI30Bounds(t *testing.T) {
	d, err := parseDocument([]byte(`{"openapi":"3.0.3","paths":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !d.v30 {
		t.Fatal("a 3.0.3 document is not read as 3.0")
	}
	runKeywordCases(t, d, []keywordCase{
		{"exclusive maximum below", `{"maximum":10,"exclusiveMaximum":true}`, `9.999`, ""},
		{"exclusive maximum at", `{"maximum":10,"exclusiveMaximum":true}`, `10`, "10 is not below the exclusive maximum 10"},
		{"inclusive maximum at", `{"maximum":10,"exclusiveMaximum":false}`, `10`, ""},
		{"inclusive maximum above", `{"maximum":10,"exclusiveMaximum":false}`, `10.5`, "10.5 is above the maximum 10"},
		{"exclusive minimum above", `{"minimum":1,"exclusiveMinimum":true}`, `1.001`, ""},
		{"exclusive minimum at", `{"minimum":1,"exclusiveMinimum":true}`, `1`, "1 is not above the exclusive minimum 1"},
		{"the maximum's flag only", `{"minimum":1,"exclusiveMaximum":true}`, `1`, ""},
		{"numeric exclusiveMinimum", `{"exclusiveMinimum":5}`, `5`, "5 is not above the exclusive minimum 5"},
		{"numeric exclusiveMinimum above", `{"exclusiveMinimum":5}`, `6`, ""},
		{"numeric exclusiveMaximum", `{"exclusiveMaximum":5}`, `5`, "5 is not below the exclusive maximum 5"},
		{"nullable", `{"type":"string","nullable":true}`, `null`, ""},
		{"nullable false", `{"type":"string","nullable":false}`, `null`, "null, want string"},
		{"nullable, not a string", `{"type":"string","nullable":true}`, `1`, "integer 1, want string"},
	})
	d31, _ := parseDocument([]byte(`{"openapi":"3.1.0","paths":{}}`))
	runKeywordCases(t, d31, []keywordCase{
		// 3.1: the booleans are not numbers, and do not touch the bounds
		{"3.1 ignores a boolean exclusiveMaximum", `{"maximum":10,"exclusiveMaximum":true}`, `10`, ""},
	})
}

// TestMember: a path step is .name for letters, digits (not first) and
// underscores, a quoted index for any other name.
func TestMember(t *testing.T) {
	for k, want := range map[string]string{
		"azAZ_09": ".azAZ_09", "_": "._", "a9": ".a9",
		"9": `["9"]`, "0a": `["0a"]`, "": `[""]`, "a-b": `["a-b"]`, "a b": `["a b"]`,
		"a@": `["a@"]`, "a[": `["a["]`, "a`": "[\"a`\"]", "a{": `["a{"]`, "a/": `["a/"]`, "a:": `["a:"]`, "é": `["é"]`,
	} {
		if got := member(k); got != want {
			t.Errorf("member(%q) = %s, want %s", k, got, want)
		}
	}
}

// TestJSONValues: JSON types and equality as JSON Schema reads them.
func TestJSONValues(t *testing.T) {
	for v, want := range map[any]string{
		json.Number("1"): "integer", json.Number("1.0"): "integer", json.Number("1e0"): "integer", json.Number("1E2"): "integer",
		json.Number("1.5"): "number", json.Number("1e-1"): "number", json.Number("1e99999"): "number",
		"s": "string", true: "boolean", nil: "null", 1.5: "float64",
	} {
		if got := jsonType(v); got != want {
			t.Errorf("jsonType(%#v) = %s, want %s", v, got, want)
		}
	}
	for _, tc := range []struct {
		a, b any
		want bool
	}{
		{json.Number("1"), 1.0, true}, {1, json.Number("1.0"), true}, {json.Number("1"), json.Number("2"), false},
		{json.Number("1"), "1", false}, {json.Number("1e99999"), json.Number("1e99999"), false},
		{"a", "a", true}, {"a", "b", false}, {true, true, true}, {false, true, false}, {nil, nil, true}, {nil, false, false},
		{[]any{}, []any{}, true}, {map[string]any{}, map[string]any{}, true}, {float32(1), float32(1), false},
	} {
		if got := jsonEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("jsonEqual(%#v, %#v) = %v", tc.a, tc.b, got)
		}
	}
}
