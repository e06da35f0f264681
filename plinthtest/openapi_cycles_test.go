package plinthtest

import (
	"runtime/debug"
	"strings"
	"testing"
)

// cycleDoc holds schemas that refer to themselves through each keyword
// that applies a subschema to the same value. A document may be built
// that way by mistake; the check must end, not recurse until the stack
// overflows.
const cycleDoc = `{"openapi":"3.1.0","paths":{},"components":{"schemas":{
 "AnyOf":{"anyOf":[{"$ref":"#/components/schemas/AnyOf"}]},
 "OneOf":{"oneOf":[{"$ref":"#/components/schemas/OneOf"}]},
 "Not":{"not":{"$ref":"#/components/schemas/Not"}},
 "If":{"if":{"$ref":"#/components/schemas/If"}},
 "Then":{"if":true,"then":{"$ref":"#/components/schemas/Then"}},
 "Else":{"if":false,"else":{"$ref":"#/components/schemas/Else"}},
 "Unevaluated":{"type":"object","unevaluatedProperties":{"$ref":"#/components/schemas/Unevaluated"}},
 "Dependent":{"dependentSchemas":{"a":{"$ref":"#/components/schemas/Dependent"}}},
 "Items":{"items":{"$ref":"#/components/schemas/Items"}},
 "PrefixItems":{"prefixItems":[{"$ref":"#/components/schemas/PrefixItems"}]},
 "Contains":{"contains":{"$ref":"#/components/schemas/Contains"}},
 "Properties":{"properties":{"a":{"$ref":"#/components/schemas/Properties"}}},
 "Patterns":{"patternProperties":{"^a$":{"$ref":"#/components/schemas/Patterns"}}},
 "Additional":{"additionalProperties":{"$ref":"#/components/schemas/Additional"}}}}}`

// TestSchemaCycles: a schema that refers to itself through anyOf, oneOf,
// not, if, then, else or dependentSchemas (the same value again) ends at
// the depth bound; through the keywords that walk into the value (items,
// prefixItems, contains, properties, patternProperties,
// additionalProperties, unevaluatedProperties), a value nested deeper than
// the bound fails as unchecked instead of passing.
// The stack is capped for the test, so that a recursion without bound
// fails at once instead of growing for a gigabyte.
func TestSchemaCycles(t *testing.T) {
	d, err := parseDocument([]byte(cycleDoc))
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	objects := strings.Repeat(`{"a":`, 300) + `{}` + strings.Repeat(`}`, 300)
	arrays := strings.Repeat(`[`, 300) + `1` + strings.Repeat(`]`, 300)
	const deep = "nests deeper than 512 levels"
	for _, c := range []struct {
		name, body string
		want       string // in the message; "" when what ends is all that counts
	}{
		{"AnyOf", `1`, deep},
		{"OneOf", `1`, deep},
		{"Not", `1`, ""}, // the nots alternate: what ends is all that counts
		{"If", `1`, ""},  // a failing if picks the absent else: the value passes
		{"Then", `1`, deep},
		{"Else", `1`, deep},
		{"Dependent", `{"a":1}`, deep},
		// Two levels of schema (the $ref and the keyword) a level of value.
		{"Unevaluated", objects, deep},
		{"Items", arrays, deep},
		{"PrefixItems", arrays, deep},
		{"Contains", arrays, "fewer than 1"}, // the innermost array fails contains, unchecked: so does each around it
		{"Properties", objects, deep},
		{"Patterns", objects, deep},
		{"Additional", objects, deep},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := validateCase(t, d, `{"$ref":"#/components/schemas/`+c.name+`"}`, c.body)
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s: %q, want %q", c.name, msg, c.want)
			}
		})
	}
}
