package plinthtest

import (
	"net/http"
	"strings"
	"testing"
)

// regressionDoc holds the components and operations of the regression
// cases.
const regressionDoc = `{"openapi":"3.1.0","paths":{
 "/r":{"get":{"responses":{
   "200":{"$ref":"#/components/responses/Item"},
   "204":{"description":"No Content"},
   "202":{"description":"Accepted","content":{"application/json":{}}},
   "201":{"description":"Created","headers":{"X-Rate-Limit":{"schema":{"type":"integer","maximum":100}},"X-Trace":{"required":true,"schema":{"type":"string"}}},
          "content":{"application/*":{"schema":{"type":"object"}}}},
   "default":{"description":"plain"}}}}},
 "components":{
  "responses":{"Item":{"description":"OK","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Item"}}}}},
  "schemas":{
   "Item":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}},"additionalProperties":false},
   "Alias":{"$ref":"#/components/schemas/Item"},
   "Tree":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/components/schemas/Tree"}}}}}}}`

// TestSchemaRegressions holds one case per gap that bench/conformance's
// comparison with a JSON Schema validator found in the check:
// each failed (or passed wrongly) before its fix.
func TestSchemaRegressions(t *testing.T) {
	d, err := parseDocument([]byte(regressionDoc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, schema, body, want string // want: "" passes, else in the message
	}{
		// null passed any schema
		{"null for a string", `{"type":"string"}`, `null`, "null, want string"},
		{"null for a $ref", `{"$ref":"#/components/schemas/Item"}`, `null`, "null, want object"},
		{"null in a type list", `{"type":["string","null"]}`, `null`, ""},
		{"anyOf with null", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `null`, ""},
		// type lists, anyOf and oneOf were not read
		{"type list", `{"type":["string","null"]}`, `1`, "integer 1, want string or null"},
		{"anyOf none", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `1`, "matches none of the 2 anyOf schemas"},
		{"oneOf both", `{"oneOf":[{"type":"integer","maximum":10},{"type":"integer","minimum":5}]}`, `7`, "matches 2 of the oneOf schemas (0, 1)"},
		{"oneOf one", `{"oneOf":[{"type":"integer","maximum":10},{"type":"integer","minimum":5}]}`, `11`, ""},
		{"if then", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"a":1}`, "$.b"},
		// numbers were compared as float64
		{"big integer past float64", `{"type":"integer","maximum":9007199254740992}`, `9007199254740993`, "is above the maximum"},
		{"decimal past an integer", `{"type":"number","maximum":10}`, `10.000000000000000001`, "is above the maximum"},
		{"integer with an invisible fraction", `{"type":"integer"}`, `10.000000000000000001`, "want integer"},
		{"1.0 is an integer", `{"type":"integer","enum":[1]}`, `1.0`, ""},
		{"multipleOf", `{"type":"number","multipleOf":0.01}`, `1.234`, "is not a multiple of 0.01"},
		{"multipleOf exact", `{"type":"number","multipleOf":0.01}`, `1.23`, ""},
		{"const 0 is -0", `{"not":{"const":0}}`, `-0`, "matches the schema it must not"},
		{"enum of objects", `{"enum":[{"a":1}]}`, `{"a":1.0}`, ""},
		// formats other than date-time were not checked
		{"email", `{"type":"string","format":"email"}`, `"ada"`, "is not a valid email"},
		{"empty local part", `{"type":"string","format":"email"}`, `"@example.com"`, "an empty local part"},
		{"uuid", `{"type":"string","format":"uuid"}`, `"123"`, "is not a valid uuid"},
		{"uri", `{"type":"string","format":"uri"}`, `"/relative"`, "is not a valid uri"},
		{"ipv4", `{"type":"string","format":"ipv4"}`, `"01.2.3.4"`, "is not a valid ipv4"},
		{"ipv6", `{"type":"string","format":"ipv6"}`, `"fe80::1%eth0"`, "is not a valid ipv6"},
		{"date", `{"type":"string","format":"date"}`, `"2023-02-29"`, "is not a valid date"},
		{"date-time leap second", `{"type":"string","format":"date-time"}`, `"1990-12-31T23:59:60Z"`, ""},
		{"date-time lower case", `{"type":"string","format":"date-time"}`, `"2024-01-01t10:00:00z"`, ""},
		{"date-time bad leap second", `{"type":"string","format":"date-time"}`, `"2024-01-01T12:00:60Z"`, "is not a valid date-time"},
		// $ref dropped its siblings and followed only components.schemas
		{"$ref sibling", `{"$ref":"#/components/schemas/Item","maxProperties":0}`, `{"id":"x"}`, "1 members, more than 0"},
		{"$ref chain", `{"$ref":"#/components/schemas/Alias"}`, `{"id":1}`, "at $.id"},
		{"$ref pointer", `{"$ref":"#/components/schemas/Item/properties/id"}`, `1`, "want string"},
		{"$ref to nothing", `{"$ref":"#/components/schemas/Nope"}`, `1`, "points to nothing"},
		{"recursion", `{"$ref":"#/components/schemas/Tree"}`, `{"kids":[{"kids":[{"kids":1}]}]}`, "at $.kids[0].kids[0].kids"},
		// array and object keywords that were not read
		{"uniqueItems", `{"type":"array","uniqueItems":true}`, `[1,2,1.0]`, "at $[2]: 1.0 repeats item 0"},
		{"prefixItems", `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a","b"]`, "at $[1]"},
		{"contains", `{"type":"array","contains":{"type":"string"}}`, `[1]`, "0 items match contains"},
		{"patternProperties", `{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":1}`, `at $["x-a"]`},
		{"patternProperties lists", `{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":"b"}`, ""},
		{"propertyNames", `{"propertyNames":{"maxLength":3}}`, `{"long":1}`, "at $.long: the member's name"},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, "at $.b: required member missing"},
		// code points, not bytes
		{"maxLength in code points", `{"type":"string","maxLength":2}`, `"éé"`, ""},
		{"minLength in code points", `{"type":"string","minLength":3}`, `"éé"`, "shorter than 3 characters (2)"},
		// what it cannot check fails rather than passes
		{"lookahead pattern", `{"type":"string","pattern":"^(?!x)"}`, `"a"`, "not one Go's regexp can compile"},
		{"unevaluatedItems", `{"unevaluatedItems":false}`, `[]`, "cannot check"},
		// unevaluatedProperties made every body fail as unchecked
		{"unevaluatedProperties", `{"allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`, "at $.b: member not in the schema (unevaluatedProperties is false)"},
		{"unevaluatedProperties allOf", `{"allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`, `{"a":1}`, ""},
		{"unevaluatedProperties $ref", `{"$ref":"#/components/schemas/Item","unevaluatedProperties":false}`, `{"id":"a"}`, ""},
		{"unevaluatedProperties failed anyOf", `{"anyOf":[{"properties":{"x":{"const":1}},"required":["x"]},{"required":["y"]}],"unevaluatedProperties":{"type":"integer"}}`, `{"y":1,"x":"q"}`, `at $.x: string "q", want integer`},
	} {
		schema, err := decodeJSON([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: schema: %v", tc.name, err)
		}
		v, err := decodeJSON([]byte(tc.body))
		if err != nil {
			t.Fatalf("%s: body: %v", tc.name, err)
		}
		p, msg := d.validate(v, schema, 0)
		got := msg
		if msg != "" {
			got = "at $" + p + ": " + msg
		}
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s against %s: %q, want %q", tc.name, tc.body, tc.schema, got, tc.want)
		}
	}
}

// TestOpenAPI30 reads a 3.0 document's nullable and boolean
// exclusiveMinimum and exclusiveMaximum, which 3.1 dropped: a null a 3.0
// document allows is not a failure, a bound it makes exclusive is one.
func TestOpenAPI30(t *testing.T) {
	for _, tc := range []struct {
		version, schema, body, want string
	}{
		{"3.0.3", `{"type":"string","nullable":true}`, `null`, ""},
		{"3.1.0", `{"type":"string","nullable":true}`, `null`, "null, want string"},
		{"3.0.3", `{"type":"string"}`, `null`, "null, want string"},
		{"3.0.3", `{"type":"integer","maximum":10,"exclusiveMaximum":true}`, `10`, "10 is not below the exclusive maximum 10"},
		{"3.0.3", `{"type":"integer","minimum":1,"exclusiveMinimum":true}`, `1`, "1 is not above the exclusive minimum 1"},
		{"3.0.3", `{"type":"integer","minimum":1,"exclusiveMinimum":false}`, `1`, ""},
		{"3.1.0", `{"type":"integer","maximum":10}`, `10`, ""},
	} {
		d, err := parseDocument([]byte(`{"openapi":"` + tc.version + `","paths":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		schema, _ := decodeJSON([]byte(tc.schema))
		v, _ := decodeJSON([]byte(tc.body))
		_, msg := d.validate(v, schema, 0)
		if tc.want == "" && msg != "" || tc.want != "" && !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s against %s: %q, want %q", tc.version, tc.body, tc.schema, msg, tc.want)
		}
	}
}

// TestConformRegressions holds the gaps of the response check around the
// schema: trailing data, empty bodies, response $refs, headers, media
// ranges, bodies where the document declares none.
func TestConformRegressions(t *testing.T) {
	d, err := parseDocument([]byte(regressionDoc))
	if err != nil {
		t.Fatal(err)
	}
	op := d.find("GET", "/r")
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		method string
		code   int
		header http.Header
		body   string
		want   string
	}{
		{"response $ref", "GET", 200, h("Content-Type", "application/json"), `{"id":1}`, "at $.id: integer 1, want string"},
		{"response $ref conforms", "GET", 200, h("Content-Type", "application/json; charset=utf-8"), `{"id":"a"}`, ""},
		{"trailing data", "GET", 200, h("Content-Type", "application/json"), `{"id":"a"} {}`, "data after the JSON value"},
		{"empty body", "GET", 200, h("Content-Type", "application/json"), ``, "the body is empty, want JSON"},
		{"HEAD has no body", "HEAD", 200, h("Content-Type", "application/json"), ``, ""},
		{"body where none is declared", "GET", 204, h(), `{}`, ""}, // 204 carries no body: net/http drops it
		{"media range", "GET", 201, h("Content-Type", "application/vnd.x+json", "X-Trace", "t"), `[]`, "at $: array [], want object"},
		{"header type", "GET", 201, h("Content-Type", "application/json", "X-Trace", "t", "X-Rate-Limit", "many"), `{}`, `the header X-Rate-Limit: string "many", want integer`},
		{"header bound", "GET", 201, h("Content-Type", "application/json", "X-Trace", "t", "X-Rate-Limit", "101"), `{}`, "the header X-Rate-Limit: 101 is above the maximum 100"},
		{"header required", "GET", 201, h("Content-Type", "application/json"), `{}`, "the header X-Trace is required for status 201 but absent"},
		{"headers conform", "GET", 201, h("Content-Type", "application/json", "X-Trace", "t", "X-Rate-Limit", "100"), `{}`, ""},
		{"default promises nothing", "GET", 500, h("Content-Type", "text/plain"), `oops`, ""},
		{"not UTF-8", "GET", 200, h("Content-Type", "application/json"), "{\"id\":\"caf\xe9\"}", "not valid UTF-8"},
		{"JSON without a schema", "GET", 202, h("Content-Type", "application/json"), `{"id":`, "the body is not valid JSON"},
		{"JSON without a schema conforms", "GET", 202, h("Content-Type", "application/json"), `{"id":1}`, ""},
	} {
		got := d.conform(op, tc.method, tc.code, tc.header, []byte(tc.body))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// a declared status without content promises no body
	d2, err := parseDocument([]byte(`{"paths":{"/x":{"delete":{"responses":{"200":{"description":"OK"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := d2.conform(d2.find("DELETE", "/x"), "DELETE", 200, http.Header{}, []byte("done")); !strings.Contains(got, "declares no content for status 200") {
		t.Errorf("a body where none is declared: %q", got)
	}
}
