package plinthtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

// TestFind: a request reaches the operation of its method whose template
// matches its path, the one with the most literal segments among several.
func TestFind(t *testing.T) {
	d, err := parseDocument([]byte(`{"openapi":"3.1.0","paths":{
	 "/books/{id}":{"get":{"responses":{}},"delete":{"responses":{}},"parameters":[],"summary":"x"},
	 "/books/new":{"get":{"responses":{}}},
	 "/a b/{id}":{"get":{"responses":{}}},
	 "/{x}/tail":{"get":{"responses":{}}},
	 "/head/{y}":{"get":{"responses":{}}},
	 "/files/{path}":{"get":{"responses":{}}},
	 "/docs/{path}":{"get":{"responses":{}}},
	 "/items/{id}/parts":{"get":{"responses":{}}},
	 "/ref":{"$ref":"#/components/pathItems/Ref"},
	 "/":{"get":{"responses":{}}}},
	 "components":{"pathItems":{"Ref":{"put":{"responses":{}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	d.markRest([]plinth.RouteInfo{
		{Pattern: "GET /files/{path...}"},
		{Pattern: "/docs/{path...}"}, // every method
		{Pattern: "GET /books/{id}"}, // no wildcard
		{Pattern: "GET files/{path...}"},
	})
	for _, tc := range []struct {
		method, path, want string // want: the template, "" for none
	}{
		{"GET", "/books/b1", "/books/{id}"},
		{"GET", "/", "/"},      // the root is its own operation
		{"GET", "/health", ""}, // a one-segment path is not the root's
		{"POST", "/", ""},
		{"DELETE", "/books/b1", "/books/{id}"},
		{"POST", "/books/b1", ""},
		{"GET", "/books/new", "/books/new"}, // more literals win
		{"DELETE", "/books/new", "/books/{id}"},
		{"GET", "/books", ""},
		{"GET", "/books/b1/x", ""},
		{"GET", "/books/a%2Fb", "/books/{id}"}, // a parameter takes %2F
		{"GET", "/a%20b/1", "/a b/{id}"},       // literals compare unescaped
		{"GET", "/head/tail", "/head/{y}"},     // a tie: the first template in order
		{"GET", "/items//parts", ""},           // a parameter is never empty
		{"GET", "/files/a", "/files/{path}"},
		{"GET", "/files/a/b/c", "/files/{path}"}, // the wildcard takes the rest
		{"GET", "/files/", ""},
		{"GET", "/files//x", "/files/{path}"}, // the rest may start empty
		{"GET", "/docs/a/b", "/docs/{path}"},
		{"GET", "/items/1/parts/x", ""}, // no wildcard
		{"GET", "/books/b1/", "/books/{id}"},
		{"PUT", "/ref", "/ref"}, // a path item by $ref
		{"GET", "/ref", ""},
	} {
		got := ""
		if o := d.find(tc.method, tc.path); o != nil {
			got = o.template
			if o.method != tc.method {
				t.Errorf("%s %s: the operation's method is %s", tc.method, tc.path, o.method)
			}
		}
		if got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
	for _, o := range d.ops {
		if want := o.template == "/files/{path}" || o.template == "/docs/{path}"; o.rest != want {
			t.Errorf("%s %s: rest %v, want %v", o.method, o.template, o.rest, want)
		}
	}
}

// TestParseDocument: what is not an OpenAPI document, or an operation that
// is not an object, is an error.
func TestParseDocument(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"paths":`, "is not JSON"},
		{`{"paths":{}} x`, "data after the JSON value at byte 13"},
		{`{"paths":{"/a":{"get":[]}}}`, "OpenAPI operation get /a is not an object"},
	} {
		if _, err := parseDocument([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.want)
		}
	}
	for _, doc := range []string{`{"paths":{}}`, "{\"paths\":{}} \t\r\n"} {
		if _, err := parseDocument([]byte(doc)); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
	for v, want := range map[string]bool{"3.0.0": true, "3.0.3": true, "3.1.0": false, "": false, "2.0": false} {
		d, err := parseDocument([]byte(`{"openapi":"` + v + `","paths":{}}`))
		if err != nil || d.v30 != want {
			t.Errorf("openapi %q: v30 %v (%v), want %v", v, d != nil && d.v30, err, want)
		}
	}
}

// conformDoc declares statuses exactly, by range and by default, media
// ranges, and headers.
const conformDoc = `{"openapi":"3.1.0","paths":{
 "/c":{"get":{"responses":{
   "200":{"description":"OK","content":{"application/json":{"schema":{"type":"object","required":["id"]}},"text/plain":{}}},
   "201":{"description":"exact","content":{"application/json":{"schema":{"const":"exact"}}}},
   "2XX":{"description":"range","content":{"application/json":{"schema":{"const":"range"}}}},
   "4xx":{"description":"lower-case range","content":{"application/problem+json":{"schema":{"required":["title"]}}}},
   "default":{"description":"default","content":{"application/json":{"schema":{"const":"default"}}}}}}},
 "/r":{"get":{"responses":{"2XX":{"description":"no content"},"404":{"description":"none"}}}},
 "/m":{"get":{"responses":{"200":{"description":"media","content":{
   "Application/JSON; charset=utf-8":{"schema":{"const":"exact"}},
   "text/*":{"schema":{}},
   "*/*":{"schema":{}},
   "application/vnd.a+json":{"$ref":"#/components/media/A"}}}}}},
 "/any":{"get":{"responses":{"200":{"description":"any","content":{"*/*":{"schema":{"type":"object"}}}}}}},
 "/h":{"get":{"responses":{"200":{"description":"headers",
   "headers":{
     "Content-Type":{"required":true,"schema":{"const":"never"}},
     "X-Count":{"schema":{"type":"integer","minimum":1}},
     "X-Flag":{"schema":{"type":"boolean"}},
     "X-Either":{"schema":{"type":["integer","boolean"]}},
     "X-Ref":{"$ref":"#/components/headers/Ref"},
     "X-Note":{"description":"no schema"},
     "A-First":{"schema":{"maxLength":1}}}}}}}},
 "components":{
  "media":{"A":{"schema":{"const":"a"}}},
  "headers":{"Ref":{"required":true,"schema":{"type":"string","minLength":2}}}}}`

// TestConformStatusAndContent: the response's status finds its entry
// exactly, then by range, then by default; its content type finds its media
// type exactly, then by range, then */*.
func TestConformStatusAndContent(t *testing.T) {
	d, err := parseDocument([]byte(conformDoc))
	if err != nil {
		t.Fatal(err)
	}
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	json := h("Content-Type", "application/json")
	ref := []string{"X-Ref", "ok"}
	for _, tc := range []struct {
		path, method string
		code         int
		header       http.Header
		body, want   string
	}{
		{"/c", "GET", 201, json, `"exact"`, ""},
		{"/c", "GET", 201, json, `"range"`, `at $: "range", want "exact"`},
		{"/c", "GET", 202, json, `"range"`, ""},
		{"/c", "GET", 299, json, `"exact"`, `at $: "exact", want "range"`},
		{"/c", "GET", 404, h("Content-Type", "application/problem+json"), `{"title":"x"}`, ""},
		{"/c", "GET", 404, h("Content-Type", "application/problem+json"), `{}`, "at $.title: required member missing"},
		{"/c", "GET", 500, json, `"default"`, ""},
		{"/c", "GET", 500, json, `"range"`, `want "default"`},
		{"/c", "GET", 200, h("Content-Type", "text/plain; charset=utf-8"), `not json`, ""},
		{"/c", "GET", 200, h(), `{}`, "content type none is not listed for status 200 (listed: application/json, text/plain)"},
		{"/c", "GET", 200, h("Content-Type", "text/html"), `x`, "content type text/html is not listed"},
		{"/c", "GET", 200, json, "  \n", "the body is empty, want JSON (application/json)"},
		{"/c", "GET", 200, json, `{"id":1} x`, "the body is not valid JSON: data after the JSON value at byte 9"},
		{"/c", "GET", 200, json, `{}`, "at $.id: required member missing"},
		{"/c", "GET", 304, json, ``, ""},
		{"/c", "HEAD", 200, json, ``, ""},
		{"/r", "GET", 200, h("Content-Type", "text/plain"), `anything`, ""}, // a range promises nothing
		{"/r", "GET", 404, h(), `x`, "a body of 1 bytes, but the document declares no content for status 404"},
		{"/r", "GET", 404, h(), ``, ""},
		{"/r", "GET", 500, h(), ``, "status 500 is not declared (declared: 2XX, 404)"},
		{"/m", "GET", 200, json, `"exact"`, ""},
		{"/m", "GET", 200, json, `"other"`, `at $: "other", want "exact"`}, // a key's parameters and case aside
		{"/m", "GET", 200, h("Content-Type", "text/csv"), `a,b`, ""},
		{"/m", "GET", 200, h("Content-Type", "image/png"), `png`, ""},
		{"/m", "GET", 200, h("Content-Type", "application/vnd.a+json"), `"a"`, ""},
		{"/m", "GET", 200, h("Content-Type", "application/vnd.a+json"), `"b"`, `at $: "b", want "a"`}, // a media type by $ref
		{"/any", "GET", 200, h("Content-Type", "application/json"), `[]`, "at $: array [], want object"},
		{"/any", "GET", 200, h("Content-Type", "text/plain"), `x`, ""},
		// headers
		{"/h", "GET", 200, h(ref...), ``, ""},
		{"/h", "GET", 200, h(), ``, "the header X-Ref is required for status 200 but absent"},
		{"/h", "GET", 200, http.Header{"X-Ref": {}}, ``, "the header X-Ref is required"},
		{"/h", "GET", 200, h("X-Ref", "o"), ``, `the header X-Ref: "o" is shorter than 2`},
		{"/h", "GET", 200, h(append(ref, "X-Count", " 1 ")...), ``, ""},
		{"/h", "GET", 200, h(append(ref, "X-Count", "0")...), ``, "the header X-Count: 0 is below the minimum 1"},
		{"/h", "GET", 200, h(append(ref, "X-Count", "+5")...), ``, `the header X-Count: string "+5", want integer`},
		{"/h", "GET", 200, h(append(ref, "X-Count", "0x10")...), ``, `string "0x10", want integer`},
		{"/h", "GET", 200, h(append(ref, "X-Count", "1.5")...), ``, `number 1.5, want integer`},
		{"/h", "GET", 200, h(append(ref, "X-Flag", "true")...), ``, ""},
		{"/h", "GET", 200, h(append(ref, "X-Flag", "false")...), ``, ""},
		{"/h", "GET", 200, h(append(ref, "X-Flag", "True")...), ``, `the header X-Flag: string "True", want boolean`},
		{"/h", "GET", 200, h(append(ref, "X-Flag", "1")...), ``, `string "1", want boolean`},
		{"/h", "GET", 200, h(append(ref, "X-Either", "7")...), ``, ""},
		{"/h", "GET", 200, h(append(ref, "X-Either", "false")...), ``, ""},
		{"/h", "GET", 200, h(append(ref, "X-Either", "x")...), ``, `string "x", want integer or boolean`},
		{"/h", "GET", 200, h(append(ref, "X-Note", "anything")...), ``, ""},
		{"/h", "GET", 200, h(append(ref, "A-First", "ab", "X-Count", "0")...), ``, "the header A-First"}, // in name order
	} {
		op := d.find(tc.method, tc.path)
		if tc.method == "HEAD" {
			op = d.find("GET", tc.path)
		}
		got := d.conform(op, tc.method, tc.code, tc.header, []byte(tc.body))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %s %d %v %q: %q, want %q", tc.method, tc.path, tc.code, tc.header, tc.body, got, tc.want)
		}
	}
}

// TestResolve: a chain of references is followed; a loop or a reference
// to nothing resolves to nil.
func TestResolve(t *testing.T) {
	d, err := parseDocument([]byte(`{"paths":{},"x":{
	 "a":{"$ref":"#/x/b"},"b":{"$ref":"#/x/c"},"c":{"v":1},
	 "loop":{"$ref":"#/x/loop"},"bad":{"$ref":"#/x/nope"},"num":{"$ref":5}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := d.resolve(map[string]any{"$ref": "#/x/a"}).(map[string]any); m == nil || m["v"] == nil {
		t.Errorf("a chain: %v", m)
	}
	for _, ref := range []string{"#/x/loop", "#/x/bad"} {
		if got := d.resolve(map[string]any{"$ref": ref}); got != nil {
			t.Errorf("%s: %v, want nil", ref, got)
		}
	}
	if m, _ := d.resolve(map[string]any{"$ref": 5}).(map[string]any); m == nil {
		t.Errorf("a $ref that is no string is no reference")
	}
	if got := d.resolve("s"); got != "s" {
		t.Errorf("a string: %v", got)
	}
	if _, ok := d.pointer("#/x/c%zz"); ok {
		t.Errorf("a fragment that does not unescape points to something")
	}
}

// TestFindTieStable: of templates with as many literals, the first in
// order wins, whatever order the document's map gave them in.
func TestFindTieStable(t *testing.T) {
	const doc = `{"openapi":"3.1.0","paths":{
	 "/{x}/{y}/c":{"get":{"responses":{}}},
	 "/{x}/b/{z}":{"get":{"responses":{}}},
	 "/a/{y}/{z}":{"get":{"responses":{}}},
	 "/{x}/{y}/{z}":{"get":{"responses":{}}}}}`
	for range 30 {
		d, err := parseDocument([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if o := d.find("GET", "/a/b/c"); o == nil || o.template != "/a/{y}/{z}" {
			t.Fatalf("find = %+v, want /a/{y}/{z}, the first of the three with one literal", o)
		}
	}
}
