package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/api/openapi"
)

// URL has the name of net/url's URL: the second one gets its package's
// name as a prefix in components.schemas.
type URL struct {
	Href string `json:"href"`
}

type pageOf[T any] struct {
	Items []T `json:"items"`
}

type kinds struct {
	I8     int8              `json:"i8" example:"-3"`
	I16    int16             `json:"i16"`
	U      uint              `json:"u" example:"7"`
	U64    uint64            `json:"u64"`
	F32    float32           `json:"f32" example:"0.5"`
	B      bool              `json:"b" example:"true"`
	Tags   []string          `json:"tags" example:"a,b"`
	Counts []int             `json:"counts" example:"1,2"`
	Pair   [2]string         `json:"pair"`
	ByID   map[int]string    `json:"byId"`
	Named  map[string]URL    `json:"named"`
	Raw    json.RawMessage   `json:"raw"`
	Blob   []byte            `json:"blob"`
	Any    any               `json:"any"`
	When   time.Time         `json:"when"`
	Color  color             `json:"color"`
	Link   *URL              `json:"link" example:"x"`
	Other  url.URL           `json:"other"`
	Page   pageOf[URL]       `json:"page"`
	Nested struct{ A int }   `json:"nested"`
	Limits map[string]string `json:"limits" validate:"required,maxItems=3"`
	Ratio  float64           `json:"ratio" validate:"exclusiveMin=0,exclusiveMax=1,required"`
	Level  int8              `json:"level" validate:"min=-200,max=5"`
	Code   string            `json:"code" validate:"format=url,pattern=^[a-z]+$"`
}

// TestDocumentModel builds a document and reads it through the typed model.
func TestDocumentModel(t *testing.T) {
	app := plinth.Bare()
	app.Get("/files/{path...}", func(c *plinth.Ctx) error { return nil })
	app.Get("/items/{id}", func(c *plinth.Ctx) error { return nil })
	app.Handle("/any", http.NotFoundHandler())                // no method: not documented
	app.Handle("CONNECT /tunnel", http.NotFoundHandler())     // no field for CONNECT
	app.Get("/{$}", func(c *plinth.Ctx) error { return nil }) // "/"
	a := api.New(app, api.Config{Title: "Kinds", Description: "Every kind.", Servers: []api.Server{{URL: "https://x.example"}},
		SecuritySchemes: map[string]api.SecurityScheme{"key": {Type: "apiKey", In: "header", Name: "X-Key"}}})
	api.Register(a, api.Operation{Method: "PUT", Path: "/kinds", Errors: []int{404, 599}, Deprecated: true,
		Security: []map[string][]string{}},
		func(_ context.Context, in *struct{ Body kinds }) (*kinds, error) { return &in.Body, nil })
	api.Register(a, api.Operation{Method: "GET", Path: "/hidden", Hidden: true}, func(context.Context, *struct{}) (*URL, error) { return nil, nil })
	api.Register(a, api.Operation{Method: "PURGE", Path: "/cache"}, func(context.Context, *struct{}) (*struct{}, error) { return nil, nil })
	// A typed operation whose derived ID a plain route would also derive.
	api.Register(a, api.Operation{Method: "POST", Path: "/items/{id}", OperationID: "get-files-by-path"},
		func(context.Context, *struct {
			ID string `path:"id"`
		}) (*struct{}, error) {
			return nil, nil
		})

	doc := a.Document()
	if doc.OpenAPI != openapi.Version || doc.Info.Title != "Kinds" || doc.Info.Description != "Every kind." || doc.Info.Version != "0.0.0" ||
		len(doc.Servers) != 1 || doc.Components.SecuritySchemes["key"].Name != "X-Key" {
		t.Errorf("document head: %+v", doc)
	}
	put := doc.Paths["/kinds"].Put
	if put == nil || !put.Deprecated || put.Security == nil || len(put.Security) != 0 || put.Responses["404"] == nil ||
		put.Responses["599"].Description != "Error." || put.Responses["200"] == nil {
		t.Fatalf("PUT /kinds: %+v", put)
	}
	for _, p := range []string{"/hidden", "/cache", "/any", "/tunnel"} {
		if it := doc.Paths[p]; it != nil && (it.Get != nil || it.Options != nil || it.Head != nil) {
			t.Errorf("%s is documented: %+v", p, it)
		}
	}
	if files := doc.Paths["/files/{path}"].Get; files == nil || files.OperationID != "" || files.Parameters[0].Name != "path" {
		t.Errorf("plain route with a taken ID: %+v", files)
	}
	if items := doc.Paths["/items/{id}"]; items.Get.OperationID != "get-items-by-id" || items.Post.OperationID != "get-files-by-path" {
		t.Errorf("/items/{id}: %+v", items)
	}
	if root := doc.Paths["/"]; root == nil || root.Get == nil {
		t.Errorf("/{$}: %+v", doc.Paths)
	}

	s := doc.Components.Schemas
	k := s["kinds"].Properties
	checks := []struct {
		name      string
		got, want any
	}{
		{"int8 range", []any{*k["i8"].Minimum, *k["i8"].Maximum, k["i8"].Examples}, []any{-128.0, 127.0, []any{-3}}},
		{"int16 range", []any{*k["i16"].Minimum, *k["i16"].Maximum}, []any{-32768.0, 32767.0}},
		{"uint", []any{*k["u"].Minimum, k["u"].Maximum, k["u"].Examples}, []any{0.0, nil, []any{7}}},
		{"uint64", []any{*k["u64"].Minimum, k["u64"].Format}, []any{0.0, ""}},
		{"float32", []any{k["f32"].Format, k["f32"].Examples}, []any{"float", []any{0.5}}},
		{"bool example", k["b"].Examples, []any{true}},
		{"list examples", []any{k["tags"].Examples, k["counts"].Examples}, []any{[]any{[]any{"a", "b"}}, []any{[]any{1, 2}}}},
		{"array", []any{*k["pair"].MinItems, *k["pair"].MaxItems}, []any{2, 2}},
		{"map with int keys", []any{k["byId"].Type, k["byId"].AdditionalProperties}, []any{"object", nil}},
		{"map of structs", k["named"].AdditionalProperties.Ref, "#/components/schemas/URL"},
		{"raw, any", []any{*k["raw"], *k["any"]}, []any{openapi.Schema{}, openapi.Schema{}}},
		{"bytes", k["blob"].ContentEncoding, "base64"},
		{"time", k["when"].Format, "date-time"},
		{"text type", k["color"].Type, "string"},
		{"pointer to struct", []any{k["link"].Ref, k["link"].Examples}, []any{"#/components/schemas/URL", []any{"x"}}},
		{"name clash", k["other"].Ref, "#/components/schemas/UrlURL"},
		{"generic", k["page"].Ref, "#/components/schemas/pageOfURL"},
		{"anonymous struct inlined", k["nested"].Properties["A"].Type, "integer"},
		{"required map", []any{*k["limits"].MinProperties, *k["limits"].MaxProperties}, []any{1, 3}},
		{"exclusive bounds, required", []any{*k["ratio"].ExclusiveMinimum, *k["ratio"].ExclusiveMaximum, k["ratio"].Not}, []any{0.0, 1.0, (*openapi.Schema)(nil)}},
		{"bounds meet the type's", []any{*k["level"].Minimum, *k["level"].Maximum}, []any{-128.0, 5.0}},
		{"url with a pattern", []any{k["code"].Pattern, k["code"].Format, k["code"].AllOf[0].Pattern}, []any{"^[a-z]+$", "uri", `^https?://[^/?#@:\s][^/?#@\s]*([/?#]|$)`}},
	}
	for _, c := range checks {
		if g, w := mustJSON(c.got), mustJSON(c.want); g != w {
			t.Errorf("%s: %s, want %s", c.name, g, w)
		}
	}
	if v, ok := s["kinds"].AdditionalProperties.IsBool(); !ok || v {
		t.Errorf("closed object: %v %v", v, ok)
	}
	if s["URL"] == nil || s["UrlURL"] == nil || s["pageOfURL"] == nil {
		t.Errorf("components: %v", keys(s))
	}

	// The document is the caller's: changing it changes nothing served.
	doc.Info.Title = "changed"
	if a.Document().Info.Title != "Kinds" {
		t.Error("Document shares state")
	}
	j, _ := a.JSON()
	y, _ := a.YAML()
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Body.String() != string(j) {
		t.Error("served JSON differs from API.JSON")
	}
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.yaml", nil))
	if rec.Body.String() != string(y) || !strings.Contains(string(y), `"additionalProperties": false`) {
		t.Errorf("served YAML differs from API.YAML:\n%.400s", rec.Body.String())
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestDefaultMessages checks the English text of every rule code.
func TestDefaultMessages(t *testing.T) {
	for code, want := range map[string]string{
		"required": "is required", "min": "must be at least 1", "max": "must be at most 1", "exclusiveMin": "must be greater than 1",
		"exclusiveMax": "must be less than 1", "minLength": "must be at least 1 characters long", "maxLength": "must be at most 1 characters long",
		"pattern": "must match the pattern 1", "enum": "must be one of: 1", "format": "must be a valid 1", "minItems": "must have at least 1 items",
		"maxItems": "must have at most 1 items", "type": "must be 1", "unknown": "is not an allowed field", "files": "has too many files (at most 1)",
		"other": "is invalid",
	} {
		if got := api.DefaultMessage(code, "1"); got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
}
