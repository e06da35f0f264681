package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestFieldsInKeyOrder holds every struct of the model to declaring its
// fields in the byte order of their JSON names: what makes the encoding's
// members sorted, as a map's would be.
func TestFieldsInKeyOrder(t *testing.T) {
	for _, v := range []any{Document{}, Info{}, Server{}, Components{}, SecurityScheme{}, PathItem{}, Operation{},
		Parameter{}, RequestBody{}, MediaType{}, Response{}, Header{}, Schema{}} {
		rt := reflect.TypeOf(v)
		var names []string
		for i := 0; i < rt.NumField(); i++ {
			if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != "" && rt.Field(i).IsExported() {
				names = append(names, name)
			}
		}
		if !slices.IsSorted(names) {
			t.Errorf("%s: fields %v are not in key order", rt.Name(), names)
		}
	}
}

func TestBooleanSchemas(t *testing.T) {
	s := &Schema{Type: "object", Properties: map[string]*Schema{}, AdditionalProperties: False,
		Items: True, Pattern: "<a&b>"}
	b, err := encode(s, "") // as Document.JSON encodes: no HTML escapes
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"additionalProperties":false,"items":true,"pattern":"<a&b>","properties":{},"type":"object"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Schema
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back.AdditionalProperties.IsBool(); !ok || v {
		t.Errorf("additionalProperties read back as %v %v", v, ok)
	}
	if v, ok := back.Items.IsBool(); !ok || !v {
		t.Errorf("items read back as %v %v", v, ok)
	}
	if _, ok := back.IsBool(); ok || back.Pattern != "<a&b>" || back.Properties == nil {
		t.Errorf("schema read back as %+v", back)
	}
	if _, ok := (*Schema)(nil).IsBool(); ok {
		t.Error("nil is a boolean schema")
	}
	if err := json.Unmarshal([]byte(`{"type":1}`), &back); err == nil {
		t.Error("a bad schema was read")
	}
}

func TestPathItemMethod(t *testing.T) {
	var p PathItem
	for _, m := range []string{"get", "PUT", "post", "DELETE", "options", "HEAD", "patch", "TRACE"} {
		slot := p.Method(m)
		if slot == nil {
			t.Fatalf("%s: no field", m)
		}
		*slot = &Operation{OperationID: m}
	}
	if p.Method("CONNECT") != nil || p.Method("purge") != nil {
		t.Error("a field for CONNECT or PURGE")
	}
	if p.Get.OperationID != "get" || p.Put.OperationID != "PUT" || p.Trace.OperationID != "TRACE" {
		t.Errorf("%+v", p)
	}
}

func TestDocumentEncodings(t *testing.T) {
	d := &Document{
		OpenAPI: Version,
		Info:    Info{Title: "a: \"b\"\n- c #d", Version: "1"},
		Paths: map[string]*PathItem{"/x": {Get: &Operation{
			OperationID: "get-x",
			Security:    []SecurityRequirement{},
			Parameters:  []*Parameter{{Name: "q", In: "query", Schema: &Schema{Type: "integer", Enum: []any{1, 2.5}}}},
			Responses:   map[string]*Response{"204": {Description: "No Content"}},
			Tags:        []string{},
		}}},
	}
	j, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	j2, _ := d.JSON()
	if string(j) != string(j2) || !strings.HasSuffix(string(j), "}\n") || !strings.Contains(string(j), `"security": []`) ||
		strings.Contains(string(j), `"tags"`) {
		t.Errorf("JSON:\n%s", j)
	}
	y, err := d.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"title": "a: \"b\"\n- c #d"`,
		"\"paths\":\n  \"/x\":\n    \"get\":\n",
		"      \"parameters\":\n        - \"in\": \"query\"\n          \"name\": \"q\"\n",
		"            \"enum\":\n              - 1\n              - 2.5\n",
		`"security": []`,
	} {
		if !strings.Contains(string(y), want) {
			t.Errorf("YAML lacks %q:\n%s", want, y)
		}
	}
	if _, err := (&Document{Info: Info{}, Paths: map[string]*PathItem{"/": {Get: &Operation{Parameters: []*Parameter{{Example: make(chan int)}}}}}}).YAML(); err == nil {
		t.Error("a value JSON cannot encode was encoded")
	}
}

func TestJSONToYAML(t *testing.T) {
	y, err := jsonToYAML([]byte(`{"b":[[1,[]],{},{"k":null,"t":true,"f":false}],"a":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	const want = "\"a\": {}\n\"b\":\n  - - 1\n    - []\n  - {}\n  - \"f\": false\n    \"k\": null\n    \"t\": true\n"
	if string(y) != want {
		t.Errorf("got\n%s\nwant\n%s", y, want)
	}
	if _, err := jsonToYAML([]byte(`{`)); err == nil {
		t.Error("bad JSON converted")
	}
}
