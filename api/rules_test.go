package api_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// ruleBody carries element rules, optional strings whose rules refuse "",
// fields required by their zero value, and the url format.
type ruleBody struct {
	Names []string   `json:"names,omitempty" validate:"maxItems=3,minLength=1,maxLength=4"`
	Kinds []string   `json:"kinds,omitempty" validate:"enum=a|b"`
	Mails []string   `json:"mails,omitempty" validate:"format=email"`
	Codes []string   `json:"codes,omitempty" validate:"pattern=^[A-Z]{2}$"`
	Nums  []int      `json:"nums,omitempty" validate:"min=1,max=9"`
	Grid  [][]string `json:"grid,omitempty" validate:"minLength=1"`
	Mail  string     `json:"mail,omitempty" validate:"format=email"`
	Note  *string    `json:"note,omitempty" validate:"minLength=2"`
	Site  string     `json:"site,omitempty" validate:"format=url"`
	Level int        `json:"level" validate:"min=1,max=5"` // required: 0 fails
	Count int        `json:"count,omitempty" validate:"required"`
	Agree bool       `json:"agree,omitempty" validate:"required"`
	Small uint8      `json:"small,omitempty"`
	When  time.Time  `json:"when,omitzero"`
	Items []Contact  `json:"items,omitempty"`
	Sub   *ruleSub   `json:"sub,omitempty"`
}

type ruleSub struct {
	Code string `json:"code,omitempty" validate:"enum=x|y"`
	N    int    `json:"n" validate:"min=1"`
}

type ruleQuery struct {
	Tags  []string `query:"tag" validate:"minLength=2"`
	Limit int      `query:"limit" default:"10" validate:"min=1,max=100"`
	Page  int      `query:"page" validate:"min=1"`
	Q     string   `query:"q" validate:"minLength=2"`
	Body  ruleBody
}

func ruleApp(t testing.TB) (*plinth.App, *api.API) {
	app := plinth.New()
	a := api.New(app, api.Config{})
	api.Register(a, api.Operation{Method: "POST", Path: "/rules", DefaultStatus: 200},
		func(ctx context.Context, in *ruleQuery) (*ruleBody, error) { return &in.Body, nil })
	return app, a
}

// problem is a decoded problem response.
type problem struct {
	Status int
	Detail string
	Errors []struct {
		Location string
		Message  string
		Value    any
	}
}

func send(t *testing.T, app *plinth.App, method, path, ctype, body string) (int, problem, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	var p problem
	if rec.Code >= 400 {
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Fatalf("%s %s: %d with Content-Type %q: %s", method, path, rec.Code, ct, rec.Body)
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatalf("problem JSON: %v: %s", err, rec.Body)
		}
	}
	return rec.Code, p, rec.Body.String()
}

// want is one expected field error: its location, a piece of its message,
// and its value (nil: no value member).
type want struct {
	loc, msg string
	value    any
}

// TestRuleTable sends values at the edges of every rule kind and checks the
// status and the exact list of field errors: one per field, with the value.
func TestRuleTable(t *testing.T) {
	app, _ := ruleApp(t)
	const base = `"level":1,"count":1,"agree":true`
	long := strings.Repeat("é", 100_000) // 200 kB
	rows := []struct {
		name  string
		query string
		body  string
		code  int
		errs  []want
	}{
		{name: "minimal", body: `{` + base + `}`, code: 200},
		// element rules of slices, as the document states them under items
		{name: "names elem minLength", body: `{"names":[""],` + base + `}`, code: 422,
			errs: []want{{"body.names[0]", "at least 1 characters", ""}}},
		{name: "names elem maxLength", body: `{"names":["abcd","abcde"],` + base + `}`, code: 422,
			errs: []want{{"body.names[1]", "at most 4 characters", "abcde"}}},
		{name: "names ok", body: `{"names":["a","abcd"],` + base + `}`, code: 200},
		{name: "names maxItems and elem", body: `{"names":["a","b","c",""],` + base + `}`, code: 422,
			errs: []want{{"body.names", "at most 3 items", nil}, {"body.names[3]", "at least 1", ""}}},
		{name: "kinds elem enum empty", body: `{"kinds":[""],` + base + `}`, code: 422,
			errs: []want{{"body.kinds[0]", "one of: a, b", ""}}},
		{name: "kinds ok", body: `{"kinds":["a","b"],` + base + `}`, code: 200},
		{name: "mails elem format", body: `{"mails":["a@b.co",""],` + base + `}`, code: 422,
			errs: []want{{"body.mails[1]", "valid email", ""}}},
		{name: "codes elem pattern", body: `{"codes":["AB","A"],` + base + `}`, code: 422,
			errs: []want{{"body.codes[1]", "pattern", "A"}}},
		{name: "nums elem min", body: `{"nums":[0,9],` + base + `}`, code: 422,
			errs: []want{{"body.nums[0]", "at least 1", 0.0}}},
		{name: "nums elem max", body: `{"nums":[1,10],` + base + `}`, code: 422,
			errs: []want{{"body.nums[1]", "at most 9", 10.0}}},
		{name: "grid nested elem", body: `{"grid":[["a"],["b",""]],` + base + `}`, code: 422,
			errs: []want{{"body.grid[1][1]", "at least 1", ""}}},
		// an optional string: absent passes, a sent "" is checked
		{name: "mail absent", body: `{` + base + `}`, code: 200},
		{name: "mail sent empty", body: `{"mail":"",` + base + `}`, code: 422,
			errs: []want{{"body.mail", "valid email", ""}}},
		{name: "mail null", body: `{"mail":null,` + base + `}`, code: 200},
		{name: "empty string elsewhere", body: `{"names":["x"],"note":"ab",` + base + `,"items":[{"email":"a@b.co","phone":""}]}`, code: 200},
		{name: "nested optional enum sent empty", body: `{"sub":{"code":"","n":1},` + base + `}`, code: 422,
			errs: []want{{"body.sub.code", "one of: x, y", ""}}},
		{name: "nested absent required", body: `{"sub":{"code":"x"},` + base + `}`, code: 422,
			errs: []want{{"body.sub.n", "is required", nil}}},
		{name: "pointer string sent empty", body: `{"note":"",` + base + `}`, code: 422,
			errs: []want{{"body.note", "at least 2", ""}}},
		// required by the zero value: absent is "is required", 0 is a value
		{name: "level absent", body: `{"count":1,"agree":true}`, code: 422, errs: []want{{"body.level", "is required", nil}}},
		{name: "level zero", body: `{"level":0,"count":1,"agree":true}`, code: 422, errs: []want{{"body.level", "at least 1", 0.0}}},
		{name: "level max", body: `{"level":6,"count":1,"agree":true}`, code: 422, errs: []want{{"body.level", "at most 5", 6.0}}},
		{name: "required number zero", body: `{"level":1,"count":0,"agree":true}`, code: 422, errs: []want{{"body.count", "is required", nil}}},
		{name: "required bool false", body: `{"level":1,"count":1,"agree":false}`, code: 422, errs: []want{{"body.agree", "is required", nil}}},
		// format=url: http and https with a host only
		{name: "url https", body: `{"site":"https://example.com/a?b#c",` + base + `}`, code: 200},
		{name: "url http port", body: `{"site":"http://example.com:8080",` + base + `}`, code: 200},
		{name: "url javascript", body: `{"site":"javascript:alert(1)",` + base + `}`, code: 422, errs: []want{{"body.site", "valid url", "javascript:alert(1)"}}},
		{name: "url data", body: `{"site":"data:text/html,<script>alert(1)</script>",` + base + `}`, code: 422, errs: []want{{"body.site", "valid url", "data:text/html,<script>alert(1)</script>"}}},
		{name: "url ftp", body: `{"site":"ftp://example.com/",` + base + `}`, code: 422, errs: []want{{"body.site", "valid url", "ftp://example.com/"}}},
		{name: "url no host", body: `{"site":"http:///path",` + base + `}`, code: 422, errs: []want{{"body.site", "valid url", "http:///path"}}},
		{name: "url user info", body: `{"site":"https://bank.example@evil.example/",` + base + `}`, code: 422, errs: []want{{"body.site", "valid url", "https://bank.example@evil.example/"}}},
		{name: "url relative", body: `{"site":"//example.com/",` + base + `}`, code: 422, errs: []want{{"body.site", "valid url", "//example.com/"}}},
		{name: "url upper scheme", body: `{"site":"HTTPS://example.com/",` + base + `}`, code: 422, errs: []want{{"body.site", "valid url", "HTTPS://example.com/"}}},
		// values of the wrong type: the value itself, one error per field
		{name: "type string for int", body: `{"level":"two","count":1,"agree":true}`, code: 422,
			errs: []want{{"body.level", "must be an integer", "two"}}},
		{name: "type number for required string list", body: `{"names":5,` + base + `}`, code: 422,
			errs: []want{{"body.names", "must be an array", 5.0}}},
		{name: "types everywhere", body: `{"level":"x","count":true,"agree":1,"mail":7,"items":[{"email":"a@b.co"},{"email":{"a":[1]}}]}`, code: 422,
			errs: []want{{"body.level", "an integer", "x"}, {"body.count", "an integer", true}, {"body.agree", "a boolean", 1.0},
				{"body.mail", "a string", 7.0}, {"body.items[1].email", "a string", `{"a":[1]}`}}},
		{name: "uint8 range", body: `{"small":256,` + base + `}`, code: 422, errs: []want{{"body.small", "from 0 to 255", 256.0}}},
		{name: "uint8 edge", body: `{"small":255,` + base + `}`, code: 200},
		{name: "time", body: `{"when":"yesterday",` + base + `}`, code: 422, errs: []want{{"body.when", "date-time", "yesterday"}}},
		{name: "time and more", body: `{"when":"yesterday","level":0,"count":1,"agree":true}`, code: 422,
			errs: []want{{"body.when", "date-time", "yesterday"}, {"body.level", "at least 1", 0.0}}},
		{name: "unknown members", body: `{"x":1,"y":{"z":2},` + base + `}`, code: 422,
			errs: []want{{"body.x", "not an allowed field", nil}, {"body.y", "not an allowed field", nil}}},
		{name: "long value cut", body: `{"names":["` + long + `"],` + base + `}`, code: 422,
			errs: []want{{"body.names[0]", "at most 4", strings.Repeat("é", 32) + "…"}}},
		{name: "long wrong type cut", body: `{"level":"` + long + `","count":1,"agree":true}`, code: 422,
			errs: []want{{"body.level", "an integer", strings.Repeat("é", 32) + "…"}}},
		{name: "long number cut", body: `{"level":1` + strings.Repeat("0", 100) + `,"count":1,"agree":true}`, code: 422,
			errs: []want{{"body.level", "an integer", "1" + strings.Repeat("0", 63) + "…"}}},
		{name: "trailing data after a type error", body: `{"level":"x"} x`, code: 400},
		// query parameters
		{name: "query list elem", query: "&tag=ab&tag=a", body: `{` + base + `}`, code: 422, errs: []want{{"query.tag[1]", "at least 2", "a"}}},
		{name: "query list empty elem", query: "&tag=ab&tag=", body: `{` + base + `}`, code: 422, errs: []want{{"query.tag[1]", "at least 2", ""}}},
		{name: "query list only empty", query: "&tag=", body: `{` + base + `}`, code: 200},
		{name: "query empty is absent", query: "&q=&limit=", body: `{` + base + `}`, code: 200},
		{name: "query zero-failing absent", query: "-", body: `{` + base + `}`, code: 422, errs: []want{{"query.page", "is required", nil}}},
		{name: "query page zero", query: "-?page=0", body: `{` + base + `}`, code: 422, errs: []want{{"query.page", "at least 1", 0.0}}},
		{name: "query long value cut", query: "&limit=" + strings.Repeat("9", 100), body: `{` + base + `}`, code: 422,
			errs: []want{{"query.limit", "an integer", strings.Repeat("9", 64) + "…"}}},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			q := "?page=1" + tc.query // page is required: min=1 fails its zero value
			if strings.HasPrefix(tc.query, "-") {
				q = tc.query[1:]
			}
			code, p, raw := send(t, app, "POST", "/rules"+q, "application/json", tc.body)
			if code != tc.code {
				t.Fatalf("status %d, want %d: %.500s", code, tc.code, raw)
			}
			if len(raw) > 4096 {
				t.Errorf("response of %d bytes", len(raw))
			}
			if code != 422 {
				return
			}
			if len(p.Errors) != len(tc.errs) {
				t.Fatalf("%d errors, want %d: %.1000s", len(p.Errors), len(tc.errs), raw)
			}
			for i, w := range tc.errs {
				got := p.Errors[i]
				if got.Location != w.loc || !strings.Contains(got.Message, w.msg) {
					t.Errorf("error %d: %s %q, want %s %q", i, got.Location, got.Message, w.loc, w.msg)
				}
				if got.Value != w.value {
					t.Errorf("error %d (%s): value %#v, want %#v", i, got.Location, got.Value, w.value)
				}
			}
		})
	}
	// A value cut at the bound: maxValueLen bytes, then the marker.
	_, p, _ := send(t, app, "POST", "/rules?page=1", "application/json", `{"names":["`+strings.Repeat("x", 65)+`"],`+base+`}`)
	if v, _ := p.Errors[0].Value.(string); v != strings.Repeat("x", 64)+"…" {
		t.Errorf("value %q", v)
	}
}

// TestDocumentStatesRules checks that the document says what the validator
// does, for the rules whose JSON Schema form is not a plain copy: element
// rules under items, required by zero value, required numbers and bools,
// the url format, closed objects, sized integers, empty query values.
func TestDocumentStatesRules(t *testing.T) {
	_, a := ruleApp(t)
	j, err := a.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) any {
		var v any = doc
		for _, k := range path {
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: no %s", path, k)
			}
			v = m[k]
		}
		return v
	}
	schema := []string{"components", "schemas", "ruleBody"}
	prop := func(name string, rest ...string) any {
		return get(append(append(append([]string{}, schema...), "properties", name), rest...)...)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"items minLength", prop("names", "items", "minLength"), 1.0},
		{"items maxLength", prop("names", "items", "maxLength"), 4.0},
		{"list maxItems", prop("names", "maxItems"), 3.0},
		{"items enum", prop("kinds", "items", "enum"), []any{"a", "b"}},
		{"items format", prop("mails", "items", "format"), "email"},
		{"items pattern", prop("codes", "items", "pattern"), "^[A-Z]{2}$"},
		{"items minimum", prop("nums", "items", "minimum"), 1.0},
		{"nested items", prop("grid", "items", "items", "minLength"), 1.0},
		{"url format", prop("site", "format"), "uri"},
		{"url pattern", prop("site", "pattern"), `^https?://[^/?#@:\s][^/?#@\s]*([/?#]|$)`},
		{"required number", prop("count", "not"), map[string]any{"const": 0.0}},
		{"required bool", prop("agree", "const"), true},
		{"uint8 maximum", prop("small", "maximum"), 255.0},
		{"closed", get(append(schema, "additionalProperties")...), false},
		{"required list", get(append(schema, "required")...), []any{"level", "count", "agree"}},
		{"nested required", get("components", "schemas", "ruleSub", "required"), []any{"n"}},
	}
	for _, c := range checks {
		if g, w := mustJSON(c.got), mustJSON(c.want); g != w {
			t.Errorf("%s: %s, want %s", c.name, g, w)
		}
	}
	params := get("paths", "/rules", "post", "parameters").([]any)
	seen := map[string]map[string]any{}
	for _, p := range params {
		m := p.(map[string]any)
		seen[m["name"].(string)] = m
	}
	if seen["page"]["required"] != true || seen["page"]["allowEmptyValue"] != nil {
		t.Errorf("page (min=1, no default): %v", seen["page"])
	}
	if seen["limit"]["required"] != nil || seen["limit"]["allowEmptyValue"] != true {
		t.Errorf("limit (with a default): %v", seen["limit"])
	}
	if seen["tag"]["schema"].(map[string]any)["items"].(map[string]any)["minLength"] != 2.0 {
		t.Errorf("tag: %v", seen["tag"])
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRegistrationRefusesBadDefault: a default that the field's own rules
// refuse would make a 422 the client cannot avoid.
func TestRegistrationRefusesBadDefault(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "refuse") {
			t.Fatalf("panic %v", r)
		}
	}()
	api.Register(api.New(plinth.Bare(), api.Config{OpenAPIPath: "-"}), api.Operation{Method: "GET", Path: "/x"},
		func(context.Context, *struct {
			N int `query:"n" default:"0" validate:"min=1"`
		}) (*struct{}, error) {
			return nil, nil
		})
}
