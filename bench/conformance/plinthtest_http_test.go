package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/plinthtest"
)

// The API of the HTTP-level test: typed operations whose handlers answer
// otherwise than their generated document says, the ways user code does.

type Owner struct {
	Name string `json:"name" validate:"required"`
}

type Item struct {
	ID     string   `json:"id" validate:"required,format=uuid"`
	Name   string   `json:"name" validate:"required,maxLength=5"`
	Email  string   `json:"email,omitempty" validate:"format=email"`
	Site   string   `json:"site,omitempty" validate:"format=url"`
	Color  string   `json:"color,omitempty" validate:"enum=red|green"`
	Code   string   `json:"code,omitempty" validate:"pattern=^[A-Z]{3}$"`
	Qty    int      `json:"qty" validate:"min=1,max=10"`
	Ratio  float64  `json:"ratio,omitempty" validate:"exclusiveMax=1"`
	Small  int8     `json:"small,omitempty"`
	Tags   []string `json:"tags" validate:"maxItems=2,minLength=1"`
	Owner  *Owner   `json:"owner"`
	Note   *string  `json:"note,omitempty"`
	When   string   `json:"when,omitempty" validate:"format=date-time"`
	Active bool     `json:"active" validate:"required"`
}

type itemIn struct {
	Case string `path:"case"`
}

type made struct {
	Status    int
	RateLimit int  `header:"X-Rate-Limit"`
	Body      Item `json:"body"`
}

// goodItem is an Item that its schema accepts.
func goodItem() *Item {
	return &Item{ID: "123e4567-e89b-12d3-a456-426614174000", Name: "Ada", Qty: 1, Tags: []string{"a"},
		Owner: &Owner{Name: "Bob"}, Active: true}
}

// brokenItems are the handler's bugs, by case: each returns an Item that
// Go encodes and the document refuses.
var brokenItems = map[string]struct {
	edit func(*Item)
	want string // in plinthtest's failure
}{
	"long-name":      {func(it *Item) { it.Name = "Adalovelace" }, `at $.name: "Adalovelace" is longer than 5 characters`},
	"unicode-name":   {func(it *Item) { it.Name = "éééééé" }, `at $.name: "éééééé" is longer than 5 characters (6)`},
	"empty-name":     {func(it *Item) { it.Name = "" }, `at $.name: "" is shorter than 1 characters`},
	"bad-uuid":       {func(it *Item) { it.ID = "123" }, `at $.id: "123" is not a valid uuid`},
	"bad-email":      {func(it *Item) { it.Email = "ada" }, `at $.email: "ada" is not a valid email`},
	"bad-url":        {func(it *Item) { it.Site = "ftp://example.com" }, `at $.site: "ftp://example.com" does not match the pattern`},
	"relative-url":   {func(it *Item) { it.Site = "/x" }, `at $.site: "/x" does not match the pattern`},
	"bad-enum":       {func(it *Item) { it.Color = "blue" }, `at $.color: "blue" is not one of ["red","green"]`},
	"bad-pattern":    {func(it *Item) { it.Code = "abc" }, `at $.code: "abc" does not match the pattern ^[A-Z]{3}$`},
	"qty-below":      {func(it *Item) { it.Qty = 0 }, `at $.qty: 0 is below the minimum 1`},
	"qty-above":      {func(it *Item) { it.Qty = 11 }, `at $.qty: 11 is above the maximum 10`},
	"ratio-at-bound": {func(it *Item) { it.Ratio = 1 }, `at $.ratio: 1 is not below the exclusive maximum 1`},
	"too-many-tags":  {func(it *Item) { it.Tags = []string{"a", "b", "c"} }, `at $.tags: 3 items, more than 2`},
	"empty-tag":      {func(it *Item) { it.Tags = []string{"a", ""} }, `at $.tags[1]: "" is shorter than 1 characters`},
	"nil-tags":       {func(it *Item) { it.Tags = nil }, `at $.tags: null, want array`},
	"nil-owner":      {func(it *Item) { it.Owner = nil }, `at $.owner: null, want object`},
	"owner-unnamed":  {func(it *Item) { it.Owner.Name = "" }, `at $.owner.name: "" is shorter than 1 characters`},
	"bad-time":       {func(it *Item) { it.When = "2024-01-01 10:00:00" }, `at $.when: "2024-01-01 10:00:00" is not a valid date-time`},
	"inactive":       {func(it *Item) { it.Active = false }, `at $.active: false, want true`},
}

// handWritten are responses that middleware or a handler writes by hand
// in place of the operation's, by path.
var handWritten = map[string]struct {
	write func(c *plinth.Ctx) error
	want  string
}{
	"wrong-type": {func(c *plinth.Ctx) error { return c.JSON(200, with(okItem(), "id", 2)) }, "at $.id: integer 2, want string"},
	"float-qty":  {func(c *plinth.Ctx) error { return c.JSON(200, with(okItem(), "qty", 1.5)) }, "at $.qty: number 1.5, want integer"},
	"big-qty": {func(c *plinth.Ctx) error {
		return c.Bytes(200, "application/json", []byte(strings.Replace(string(mustJSONBytes(nil, okItem())), `"qty":1`, `"qty":10.000000000000000001`, 1)))
	}, "at $.qty: number 10.000000000000000001, want integer"},
	"big-small":  {func(c *plinth.Ctx) error { return c.JSON(200, with(okItem(), "small", 128)) }, "at $.small: 128 is above the maximum 127"},
	"null-name":  {func(c *plinth.Ctx) error { return c.JSON(200, with(okItem(), "name", nil)) }, "at $.name: null, want string"},
	"string-qty": {func(c *plinth.Ctx) error { return c.JSON(200, with(okItem(), "qty", "1")) }, `at $.qty: string "1", want integer`},
	"extra":      {func(c *plinth.Ctx) error { return c.JSON(200, with(okItem(), "isbn", "1")) }, "at $.isbn: member not in the schema"},
	"missing":    {func(c *plinth.Ctx) error { return c.JSON(200, without(okItem(), "name")) }, "at $.name: required member missing"},
	"owner-extra": {func(c *plinth.Ctx) error {
		return c.JSON(200, with(okItem(), "owner", map[string]any{"name": "B", "age": 3}))
	}, "at $.owner.age: member not in the schema"},
	"text":    {func(c *plinth.Ctx) error { return c.Text(200, "ok") }, "content type text/plain is not listed for status 200 (listed: application/json)"},
	"empty":   {func(c *plinth.Ctx) error { return c.Bytes(200, "application/json", nil) }, "the body is empty, want JSON"},
	"no-type": {func(c *plinth.Ctx) error { c.Writer().WriteHeader(200); return nil }, "content type none is not listed for status 200"},
	"trailing": {func(c *plinth.Ctx) error {
		return c.Bytes(200, "application/json", append(mustJSONBytes(nil, okItem()), "{}"...))
	}, "the body is not valid JSON: data after the JSON value"},
	"undeclared":   {func(c *plinth.Ctx) error { return plinth.Forbidden("no") }, "status 403 is not declared (declared: 200, 400, 404, 422, 500)"},
	"problem-json": {func(c *plinth.Ctx) error { return c.JSON(404, map[string]any{"title": "Not Found", "status": 404}) }, "content type application/json is not listed for status 404 (listed: application/problem+json)"},
	"problem-shape": {func(c *plinth.Ctx) error {
		return c.Bytes(404, "application/problem+json", []byte(`{"title":"Not Found"}`))
	}, "at $.status: required member missing"},
	"problem-types": {func(c *plinth.Ctx) error {
		return c.Bytes(422, "application/problem+json", []byte(`{"title":"x","status":"422"}`))
	}, `at $.status: string "422", want integer`},
	"problem-errors": {func(c *plinth.Ctx) error {
		return c.Bytes(422, "application/problem+json", []byte(`{"title":"x","status":422,"errors":[{"location":"body.name"}]}`))
	}, "at $.errors[0].message: required member missing"},
}

// okItem is goodItem as the JSON members a hand-written response starts
// from.
func okItem() map[string]any {
	return map[string]any{"id": "123e4567-e89b-12d3-a456-426614174000", "name": "Ada", "qty": 1, "tags": []any{"a"},
		"owner": map[string]any{"name": "Bob"}, "active": true}
}

// madeCases are responses of an operation with a header and a status of
// its own.
var madeCases = map[string]struct {
	write func(c *plinth.Ctx) error
	want  string
}{
	"bad-header": {func(c *plinth.Ctx) error {
		c.Header().Set("X-Rate-Limit", "many")
		return c.JSON(201, okItem())
	}, `the header X-Rate-Limit: string "many", want integer`},
	"no-body": {func(c *plinth.Ctx) error { c.Writer().WriteHeader(201); return nil }, "content type none is not listed for status 201"},
}

func itemsApp() *plinth.App {
	app := plinth.New()
	a := api.New(app, api.Config{Title: "Items", Version: "1"})
	api.Register(a, api.Operation{Method: "GET", Path: "/items/{case}", Errors: []int{404}},
		func(ctx context.Context, in *itemIn) (*Item, error) {
			it := goodItem()
			if in.Case == "missing-item" {
				return nil, plinth.NotFound("no item")
			}
			if b, ok := brokenItems[in.Case]; ok {
				b.edit(it)
			}
			return it, nil
		})
	api.Register(a, api.Operation{Method: "POST", Path: "/made/{case}", DefaultStatus: 201},
		func(ctx context.Context, in *itemIn) (*made, error) {
			out := &made{RateLimit: 10, Body: *goodItem()}
			if in.Case == "accepted" {
				out.Status = 202 // a status the document does not declare
			}
			return out, nil
		})
	app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			p := c.Request().URL.Path
			if h, ok := handWritten[strings.TrimPrefix(p, "/items/")]; ok && strings.HasPrefix(p, "/items/") {
				return h.write(c)
			}
			if h, ok := madeCases[strings.TrimPrefix(p, "/made/")]; ok && strings.HasPrefix(p, "/made/") {
				return h.write(c)
			}
			return next(c)
		}
	})
	return app
}

// TestPlinthtestRefusesBrokenResponses serves, through plinthtest's
// public API, responses of typed operations that break their generated
// document the ways a handler does, and expects each to fail the test
// with the place and the reason; conforming responses pass.
func TestPlinthtestRefusesBrokenResponses(t *testing.T) {
	app := itemsApp()
	tb := &captureTB{}
	check := func(method, path, want string) {
		t.Helper()
		msg := tb.run(func(tb testing.TB) {
			c := plinthtest.New(tb, app, plinthtest.Config{})
			if method == "GET" {
				c.Get(path)
			} else {
				c.PostJSON(path, `{}`)
			}
		})
		switch {
		case want == "" && msg != "":
			t.Errorf("%s %s: want a pass, got %s", method, path, msg)
		case want != "" && msg == "":
			t.Errorf("%s %s: passed, want a failure with %q", method, path, want)
		case want != "" && !strings.Contains(msg, want):
			t.Errorf("%s %s: the failure lacks %q:\n%s", method, path, want, msg)
		}
	}
	for name, b := range brokenItems {
		check("GET", "/items/"+name, b.want)
	}
	for name, h := range handWritten {
		check("GET", "/items/"+name, h.want)
	}
	for name, h := range madeCases {
		check("POST", "/made/"+name, h.want)
	}
	check("POST", "/made/accepted", "status 202 is not declared (declared: 201, 400, 422, 500)")

	// conforming responses pass: a good item, five code points of two
	// bytes each, a declared problem, the operation with its header
	check("GET", "/items/ok", "")
	check("GET", "/items/missing-item", "")
	check("POST", "/made/ok", "")
	five := tb.run(func(tb testing.TB) {
		app := plinth.New()
		a := api.New(app, api.Config{Title: "Five"})
		api.Register(a, api.Operation{Method: "GET", Path: "/five"}, func(ctx context.Context, in *struct{}) (*Item, error) {
			it := goodItem()
			it.Name = "ééééé"
			return it, nil
		})
		plinthtest.New(tb, app, plinthtest.Config{}).Get("/five")
	})
	if five != "" {
		t.Errorf("a name of 5 code points (10 bytes) against maxLength 5: %s", five)
	}
	// a route with a {name...} wildcard (the document writes {name}) is
	// checked at every depth, and a parameter holding %2F is one segment
	rest := plinth.New()
	ra := api.New(rest, api.Config{Title: "Files"})
	api.Register(ra, api.Operation{Method: "GET", Path: "/files/{path...}"},
		func(ctx context.Context, in *struct {
			P string `path:"path"`
		}) (*Item, error) {
			it := goodItem()
			it.Name = in.P
			return it, nil
		})
	api.Register(ra, api.Operation{Method: "GET", Path: "/users/{id}/name"},
		func(ctx context.Context, in *struct {
			ID string `path:"id"`
		}) (*Item, error) {
			it := goodItem()
			it.Name = in.ID
			return it, nil
		})
	for path, want := range map[string]string{
		"/files/ok": "", "/files/a/b/c/d": `at $.name: "a/b/c/d" is longer than 5 characters`,
		"/files/toolong": `at $.name: "toolong"`, "/users/a%2Fbcdef/name": `at $.name: "a/bcdef" is longer than 5 characters`,
	} {
		msg := tb.run(func(tb testing.TB) { plinthtest.New(tb, rest, plinthtest.Config{}).Get(path) })
		if want == "" && msg != "" || want != "" && !strings.Contains(msg, want) {
			t.Errorf("GET %s: %q, want %q", path, msg, want)
		}
	}

	// switched off, a broken response passes
	if msg := tb.run(func(tb testing.TB) {
		plinthtest.New(tb, app, plinthtest.Config{SkipOpenAPI: true}).Get("/items/long-name")
	}); msg != "" {
		t.Errorf("SkipOpenAPI: %s", msg)
	}
}
