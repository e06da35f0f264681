package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

type Address struct {
	Street string `json:"street" validate:"required,maxLength=40"`
	Zip    string `json:"zip" validate:"pattern=^[0-9]{5}$"`
}

type Contact struct {
	Email string `json:"email" validate:"required,format=email"`
	Phone string `json:"phone,omitempty" validate:"maxLength=20"`
}

type Order struct {
	Name     string    `json:"name" validate:"required,minLength=2,maxLength=20" doc:"Customer name" example:"Ada"`
	Qty      int       `json:"qty" validate:"min=1,max=100"`
	Kind     string    `json:"kind" validate:"enum=small|large"`
	ID       string    `json:"id,omitempty" validate:"format=uuid"`
	Site     string    `json:"site,omitempty" validate:"format=uri"`
	When     string    `json:"when,omitempty" validate:"format=date-time"`
	Tags     []string  `json:"tags,omitempty" validate:"maxItems=3,maxLength=5"`
	Items    []Contact `json:"items,omitempty" validate:"minItems=0"`
	Address  *Address  `json:"address,omitempty"`
	Discount *float64  `json:"discount,omitempty" validate:"min=0,max=0.5"`
}

type createIn struct {
	Trace string `header:"X-Trace" validate:"maxLength=8"`
	Body  Order
}

type orderOut struct {
	Status   int
	Location string `header:"Location"`
	Body     *Order
}

type getIn struct {
	ID     int       `path:"id" validate:"min=1"`
	Limit  int       `query:"limit" default:"10" validate:"min=1,max=100"`
	Q      string    `query:"q" validate:"minLength=2"`
	Sort   string    `query:"sort" validate:"enum=asc|desc"`
	Tags   []string  `query:"tag" validate:"maxItems=2"`
	Since  time.Time `query:"since"`
	Flag   *bool     `query:"flag"`
	Ratio  float64   `query:"ratio"`
	Small  uint8     `query:"small"`
	Trace  string    `header:"X-Trace"`
	IDs    []int     `header:"X-Ids"`
	Sess   string    `cookie:"sid"`
	Needed string    `query:"needed" validate:"required"`
}

type getOut struct {
	ID    int       `json:"id"`
	Limit int       `json:"limit"`
	Q     string    `json:"q"`
	Sort  string    `json:"sort"`
	Tags  []string  `json:"tags"`
	Since time.Time `json:"since"`
	Flag  *bool     `json:"flag"`
	Ratio float64   `json:"ratio"`
	Small uint8     `json:"small"`
	Trace string    `json:"trace"`
	IDs   []int     `json:"ids"`
	Sess  string    `json:"sess"`
}

type rangeIn struct {
	From int `query:"from"`
	To   int `query:"to"`
}

func (r *rangeIn) Validate(context.Context) error {
	if r.To < r.From {
		return &api.FieldError{Location: "query.to", Message: "must not be before from", Value: r.To}
	}
	return nil
}

type uploadForm struct {
	Title string                  `form:"title" validate:"required,maxLength=10"`
	Count int                     `form:"count" default:"1" validate:"max=5"`
	File  *multipart.FileHeader   `form:"file"`
	More  []*multipart.FileHeader `form:"more"`
}

type uploadIn struct{ Body uploadForm }

type uploadOut struct {
	Title string `json:"title"`
	Count int    `json:"count"`
	File  string `json:"file"`
	Size  int64  `json:"size"`
	More  int    `json:"more"`
}

type empty struct{}

type textOut struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func newTestAPI(t testing.TB) (*plinth.App, *api.API) {
	app := plinth.New()
	a := api.New(app, api.Config{Title: "Test", Version: "1.0.0",
		SecuritySchemes: map[string]api.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}})
	app.Get("/plain/{name}", func(c *plinth.Ctx) error { return c.Text(200, "hi "+c.Param("name")) })

	api.Register(a, api.Operation{Method: "POST", Path: "/orders", Summary: "Create an order", Tags: []string{"orders"},
		Security: []map[string][]string{{"bearer": nil}}},
		func(ctx context.Context, in *createIn) (*orderOut, error) {
			return &orderOut{Location: "/orders/1", Body: &in.Body}, nil
		})
	api.Register(a, api.Operation{Method: "GET", Path: "/things/{id}"},
		func(ctx context.Context, in *getIn) (*getOut, error) {
			if in.ID == 404 {
				return nil, plinth.NotFound("no such thing")
			}
			if in.ID == 500 {
				return nil, errors.New("secret failure")
			}
			return &getOut{in.ID, in.Limit, in.Q, in.Sort, in.Tags, in.Since, in.Flag, in.Ratio, in.Small, in.Trace, in.IDs, in.Sess}, nil
		})
	api.Register(a, api.Operation{Method: "GET", Path: "/range"},
		func(ctx context.Context, in *rangeIn) (*empty, error) { return &empty{}, nil })
	api.Register(a, api.Operation{Method: "POST", Path: "/upload", MaxBodyBytes: 1 << 10, DefaultStatus: 200},
		func(ctx context.Context, in *uploadIn) (*uploadOut, error) {
			o := &uploadOut{Title: in.Body.Title, Count: in.Body.Count, More: len(in.Body.More)}
			if in.Body.File != nil {
				o.File, o.Size = in.Body.File.Filename, in.Body.File.Size
			}
			return o, nil
		})
	a.Group("/v1", func(g *api.Group) {
		g.Router().Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
			return func(c *plinth.Ctx) error { c.Header().Set("X-Group", "v1"); return next(c) }
		})
		api.Register(g, api.Operation{Method: "DELETE", Path: "/things/{id}"},
			func(ctx context.Context, in *struct {
				ID string `path:"id"`
			}) (*struct{}, error) {
				return nil, nil
			})
		api.RegisterCtx(g, api.Operation{Method: "GET", Path: "/text"},
			func(c *plinth.Ctx, in *struct{}) (*textOut, error) {
				return &textOut{ContentType: "text/csv", Body: []byte("a,b\n")}, nil
			})
	})
	return app, a
}

type row struct {
	name     string
	method   string
	path     string
	ctype    string
	body     string
	header   map[string]string
	status   int
	contains []string
	absent   []string
}

func TestFeatures(t *testing.T) {
	app, _ := newTestAPI(t)
	good := `{"name":"Ada","qty":2,"kind":"small"}`
	rows := []row{
		// binding sources
		{name: "path int", method: "GET", path: "/things/7?needed=x", status: 200, contains: []string{`"id":7`}},
		{name: "query default", method: "GET", path: "/things/7?needed=x", status: 200, contains: []string{`"limit":10`}},
		{name: "query value", method: "GET", path: "/things/7?needed=x&limit=55&q=go&sort=asc", status: 200, contains: []string{`"limit":55`, `"q":"go"`, `"sort":"asc"`}},
		{name: "query escaped", method: "GET", path: "/things/7?needed=x&q=a%20b", status: 200, contains: []string{`"q":"a b"`}},
		{name: "query repeated slice", method: "GET", path: "/things/7?needed=x&tag=a&tag=b", status: 200, contains: []string{`"tags":["a","b"]`}},
		{name: "query time", method: "GET", path: "/things/7?needed=x&since=2024-05-01T10:00:00Z", status: 200, contains: []string{`"since":"2024-05-01T10:00:00Z"`}},
		{name: "query pointer bool", method: "GET", path: "/things/7?needed=x&flag=true", status: 200, contains: []string{`"flag":true`}},
		{name: "query absent pointer", method: "GET", path: "/things/7?needed=x", status: 200, contains: []string{`"flag":null`}},
		{name: "query float uint", method: "GET", path: "/things/7?needed=x&ratio=0.5&small=200", status: 200, contains: []string{`"ratio":0.5`, `"small":200`}},
		{name: "header", method: "GET", path: "/things/7?needed=x", header: map[string]string{"X-Trace": "abc", "X-Ids": "1, 2,3"}, status: 200, contains: []string{`"trace":"abc"`, `"ids":[1,2,3]`}},
		{name: "cookie", method: "GET", path: "/things/7?needed=x", header: map[string]string{"Cookie": "sid=s3"}, status: 200, contains: []string{`"sess":"s3"`}},
		// parameter errors
		{name: "path not int", method: "GET", path: "/things/x?needed=x", status: 422, contains: []string{`"location":"path.id"`, `must be an integer`, `"value":"x"`}},
		{name: "path min", method: "GET", path: "/things/0?needed=x", status: 422, contains: []string{`"location":"path.id"`, "must be at least 1"}},
		{name: "query required", method: "GET", path: "/things/7", status: 422, contains: []string{`"location":"query.needed"`, "is required"}},
		{name: "query max", method: "GET", path: "/things/7?needed=x&limit=101", status: 422, contains: []string{`"location":"query.limit"`, "must be at most 100", `"value":101`}},
		{name: "query enum", method: "GET", path: "/things/7?needed=x&sort=up", status: 422, contains: []string{`"location":"query.sort"`, "must be one of: asc, desc"}},
		{name: "query minLength", method: "GET", path: "/things/7?needed=x&q=a", status: 422, contains: []string{`"location":"query.q"`, "at least 2 characters"}},
		{name: "query maxItems", method: "GET", path: "/things/7?needed=x&tag=a&tag=b&tag=c", status: 422, contains: []string{`"location":"query.tag"`, "at most 2 items"}},
		{name: "query bad time", method: "GET", path: "/things/7?needed=x&since=yesterday", status: 422, contains: []string{`"location":"query.since"`, "RFC 3339"}},
		{name: "query uint overflow", method: "GET", path: "/things/7?needed=x&small=300", status: 422, contains: []string{`"location":"query.small"`}},
		{name: "header list bad", method: "GET", path: "/things/7?needed=x", header: map[string]string{"X-Ids": "1,x"}, status: 422, contains: []string{`"location":"header.X-Ids"`, `"value":"x"`}},
		{name: "all errors at once", method: "GET", path: "/things/x?limit=0&sort=up", status: 422, contains: []string{`path.id`, `query.limit`, `query.sort`, `query.needed`}},
		// handler errors
		{name: "handler problem", method: "GET", path: "/things/404?needed=x", status: 404, contains: []string{"no such thing", `"request_id"`}},
		{name: "handler error hidden", method: "GET", path: "/things/500?needed=x", status: 500, absent: []string{"secret"}},
		// JSON body
		{name: "post created", method: "POST", path: "/orders", ctype: "application/json", body: good, status: 201, contains: []string{`"name":"Ada"`}},
		{name: "post +json", method: "POST", path: "/orders", ctype: "application/merge-patch+json", body: good, status: 201},
		{name: "post no content type", method: "POST", path: "/orders", body: good, status: 201},
		{name: "malformed json", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":`, status: 400, contains: []string{"not valid JSON"}},
		{name: "trailing blanks", method: "POST", path: "/orders", ctype: "application/json", body: " " + good + "\n\n", status: 201},
		{name: "two values", method: "POST", path: "/orders", ctype: "application/json", body: good + good, status: 400},
		{name: "trailing brace", method: "POST", path: "/orders", ctype: "application/json", body: good + "}", status: 400},
		{name: "trailing data", method: "POST", path: "/orders", ctype: "application/json", body: good + `x`, status: 400},
		{name: "wrong content type", method: "POST", path: "/orders", ctype: "text/plain", body: good, status: 415},
		{name: "empty body", method: "POST", path: "/orders", ctype: "application/json", body: "", status: 422, contains: []string{`"location":"body"`, "is required"}},
		{name: "unknown field", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":2,"bogus":1}`, status: 422, contains: []string{`"location":"body.bogus"`}},
		{name: "type error", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":"two"}`, status: 422, contains: []string{`"location":"body.qty"`, "must be an integer"}, absent: []string{"must be at least 1"}},
		{name: "required", method: "POST", path: "/orders", ctype: "application/json", body: `{"qty":2}`, status: 422, contains: []string{`"location":"body.name"`, "is required"}},
		{name: "minLength", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"A","qty":2}`, status: 422, contains: []string{"at least 2 characters", `"value":"A"`}},
		{name: "maxLength", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"` + strings.Repeat("é", 21) + `","qty":2}`, status: 422, contains: []string{"at most 20 characters"}},
		{name: "min max", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":0}`, status: 422, contains: []string{`"location":"body.qty"`, "at least 1"}},
		{name: "enum", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"kind":"huge"}`, status: 422, contains: []string{`"location":"body.kind"`}},
		{name: "format uuid", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"id":"nope"}`, status: 422, contains: []string{`"location":"body.id"`, "valid uuid"}},
		{name: "format uuid ok", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"id":"123e4567-e89b-12d3-a456-426614174000"}`, status: 201},
		{name: "format uri", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"site":"not a uri"}`, status: 422, contains: []string{`"location":"body.site"`}},
		{name: "format date-time", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"when":"2024-13-01"}`, status: 422, contains: []string{`"location":"body.when"`}},
		{name: "slice elements", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"tags":["ok","toolong"]}`, status: 422, contains: []string{`"location":"body.tags[1]"`}},
		{name: "maxItems", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"tags":["a","b","c","d"]}`, status: 422, contains: []string{`"location":"body.tags"`}},
		{name: "nested slice of structs", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"items":[{"email":"a@b.co"},{"email":"a@b.co"},{"email":"bad"}]}`, status: 422, contains: []string{`"location":"body.items[2].email"`, "valid email"}},
		{name: "nested pointer struct", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"address":{"street":"","zip":"12"}}`, status: 422, contains: []string{`"location":"body.address.street"`, `"location":"body.address.zip"`, "must match the pattern"}},
		{name: "pointer number", method: "POST", path: "/orders", ctype: "application/json", body: `{"name":"Ada","qty":1,"discount":0.9}`, status: 422, contains: []string{`"location":"body.discount"`}},
		{name: "header and body errors together", method: "POST", path: "/orders", ctype: "application/json", header: map[string]string{"X-Trace": "123456789"}, body: `{"qty":500}`, status: 422, contains: []string{"header.X-Trace", "body.name", "body.qty"}},
		{name: "output header and status", method: "POST", path: "/orders", ctype: "application/json", body: good, status: 201, contains: []string{"Location: /orders/1"}},
		// hook
		{name: "validate hook ok", method: "GET", path: "/range?from=1&to=2", status: 204},
		{name: "validate hook error", method: "GET", path: "/range?from=3&to=2", status: 422, contains: []string{`"location":"query.to"`, "must not be before from"}},
		// forms
		{name: "urlencoded form", method: "POST", path: "/upload", ctype: "application/x-www-form-urlencoded", body: "title=hello&count=3", status: 200, contains: []string{`"title":"hello"`, `"count":3`}},
		{name: "form default", method: "POST", path: "/upload", ctype: "application/x-www-form-urlencoded", body: "title=hello", status: 200, contains: []string{`"count":1`}},
		{name: "form validation", method: "POST", path: "/upload", ctype: "application/x-www-form-urlencoded", body: "title=&count=9", status: 422, contains: []string{`"location":"body.title"`, `"location":"body.count"`}},
		{name: "form type error", method: "POST", path: "/upload", ctype: "application/x-www-form-urlencoded", body: "title=a&count=x", status: 422, contains: []string{`"location":"body.count"`}},
		{name: "form wrong type", method: "POST", path: "/upload", ctype: "application/json", body: "{}", status: 415},
		{name: "form too large", method: "POST", path: "/upload", ctype: "application/x-www-form-urlencoded", body: "title=" + strings.Repeat("x", 2000), status: 413},
		// groups, plain routes, outputs
		{name: "group nil out 204", method: "DELETE", path: "/v1/things/9", status: 204, contains: []string{"X-Group: v1"}},
		{name: "bytes body with content type", method: "GET", path: "/v1/text", status: 200, contains: []string{"Content-Type: text/csv", "a,b"}},
		{name: "plain route", method: "GET", path: "/plain/bob", status: 200, contains: []string{"hi bob"}},
		{name: "openapi json", method: "GET", path: "/openapi.json", status: 200, contains: []string{`"openapi": "3.1.0"`}},
		{name: "openapi yaml", method: "GET", path: "/openapi.yaml", status: 200, contains: []string{`"openapi": "3.1.0"`, "Content-Type: application/yaml"}},
		{name: "docs page", method: "GET", path: "/docs", status: 200, contains: []string{"api-reference", "/openapi.json", "cdn.jsdelivr.net"}},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			dump := dumpResponse(rec)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d\n%s", rec.Code, tc.status, dump)
			}
			if rec.Code >= 400 && rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("error Content-Type %q\n%s", rec.Header().Get("Content-Type"), dump)
			}
			for _, s := range tc.contains {
				if !strings.Contains(dump, s) {
					t.Errorf("response lacks %q\n%s", s, dump)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(dump, s) {
					t.Errorf("response has %q\n%s", s, dump)
				}
			}
		})
	}
}

func dumpResponse(rec *httptest.ResponseRecorder) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", rec.Code)
	for k, v := range rec.Header() {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(v, ", "))
	}
	b.WriteString("\n")
	b.WriteString(rec.Body.String())
	return b.String()
}

func TestMultipart(t *testing.T) {
	app, _ := newTestAPI(t)
	send := func(files int, size int) *httptest.ResponseRecorder {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("title", "pic")
		fw, _ := mw.CreateFormFile("file", "a.txt")
		_, _ = fw.Write(bytes.Repeat([]byte("x"), size))
		for i := 0; i < files; i++ {
			fw, _ := mw.CreateFormFile("more", fmt.Sprintf("m%d.txt", i))
			_, _ = fw.Write([]byte("y"))
		}
		_ = mw.Close()
		req := httptest.NewRequest("POST", "/upload", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		return rec
	}
	if rec := send(2, 10); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"file":"a.txt","size":10,"more":2`) {
		t.Fatalf("multipart: %d %s", rec.Code, rec.Body)
	}
	if rec := send(0, 5000); rec.Code != 413 {
		t.Fatalf("large multipart: %d %s", rec.Code, rec.Body)
	}
	// MaxFiles: a config of 2 files.
	app2 := plinth.New()
	a2 := api.New(app2, api.Config{MaxFiles: 2})
	api.Register(a2, api.Operation{Method: "POST", Path: "/upload"}, func(ctx context.Context, in *uploadIn) (*uploadOut, error) {
		return &uploadOut{}, nil
	})
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("title", "x")
	for i := 0; i < 3; i++ {
		fw, _ := mw.CreateFormFile("more", "f")
		_, _ = fw.Write([]byte("y"))
	}
	_ = mw.Close()
	req := httptest.NewRequest("POST", "/upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	app2.ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Fatalf("too many files: %d %s", rec.Code, rec.Body)
	}
}

func TestMessagesReplaceable(t *testing.T) {
	app := plinth.New()
	a := api.New(app, api.Config{Message: func(r *http.Request, code, param string) string {
		if strings.HasPrefix(r.Header.Get("Accept-Language"), "fr") && code == "required" {
			return "est obligatoire"
		}
		return ""
	}})
	api.Register(a, api.Operation{Method: "POST", Path: "/o"}, func(ctx context.Context, in *createIn) (*orderOut, error) { return nil, nil })
	req := httptest.NewRequest("POST", "/o", strings.NewReader(`{"qty":0}`))
	req.Header.Set("Accept-Language", "fr-FR")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), "est obligatoire") || !strings.Contains(rec.Body.String(), "must be at least 1") {
		t.Fatalf("translated: %s", rec.Body)
	}
}

func TestUnknownFieldsAllowed(t *testing.T) {
	app := plinth.Bare()
	a := api.New(app, api.Config{AllowUnknownFields: true, OpenAPIPath: "-"})
	api.Register(a, api.Operation{Method: "POST", Path: "/o"}, func(ctx context.Context, in *createIn) (*Order, error) { return &in.Body, nil })
	req := httptest.NewRequest("POST", "/o", strings.NewReader(`{"name":"Ada","qty":1,"extra":true}`))
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 201 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	for _, p := range []string{"/openapi.json", "/docs"} {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 404 {
			t.Errorf("%s served with OpenAPIPath \"-\": %d", p, rec.Code)
		}
	}
}

func TestRegistrationPanics(t *testing.T) {
	cases := []struct {
		name string
		fn   func(a *api.API)
		want string
	}{
		{"missing path field", func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x/{id}"}, func(context.Context, *struct{}) (*struct{}, error) { return nil, nil })
		}, "no `path:\"id\"` field"},
		{"bad rule", func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q string `query:"q" validate:"min=x"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "min needs a number"},
		{"rule on wrong type", func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q int `query:"q" validate:"minLength=1"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "does not apply"},
		{"bad default", func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q int `query:"q" default:"ten"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "default"},
		{"duplicate id", func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x", OperationID: "same"}, func(context.Context, *struct{}) (*struct{}, error) { return nil, nil })
			api.Register(a, api.Operation{Method: "GET", Path: "/y", OperationID: "same"}, func(context.Context, *struct{}) (*struct{}, error) { return nil, nil })
		}, "already used"},
		{"unsupported param type", func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q map[string]int `query:"q"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "cannot be of type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Fatalf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.fn(api.New(plinth.Bare(), api.Config{OpenAPIPath: "-"}))
		})
	}
}

func TestDocsPageCSP(t *testing.T) {
	for _, docsURL := range []string{"", "/assets/scalar.js"} {
		app, _ := newTestAPI(t)
		if docsURL != "" {
			app = plinth.New()
			api.New(app, api.Config{DocsURL: docsURL})
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", "/docs", nil))
		if rec.Code != 200 {
			t.Fatalf("docs: %d", rec.Code)
		}
		csp := rec.Header().Get("Content-Security-Policy")
		var scriptSrc []string
		for _, d := range strings.Split(csp, ";") {
			f := strings.Fields(d)
			if len(f) > 0 && f[0] == "script-src" {
				scriptSrc = f[1:]
			}
		}
		srcs := regexp.MustCompile(`<script[^>]*\bsrc="([^"]+)"[^>]*nonce="([^"]+)"`).FindAllStringSubmatch(rec.Body.String(), -1)
		if len(srcs) != 1 {
			t.Fatalf("page scripts: %q", rec.Body.String())
		}
		src, nonce := srcs[0][1], srcs[0][2]
		origin := "'self'"
		if strings.HasPrefix(src, "https://") {
			origin = "https://" + strings.SplitN(strings.TrimPrefix(src, "https://"), "/", 2)[0]
		}
		allowed := map[string]bool{}
		for _, s := range scriptSrc {
			allowed[s] = true
		}
		if !allowed[origin] || !allowed["'nonce-"+nonce+"'"] {
			t.Errorf("script-src %q does not allow %s (origin %s, nonce %s)", scriptSrc, src, origin, nonce)
		}
		if want := api.DefaultDocsURL; docsURL == "" && src != want {
			t.Errorf("script %q, want %q", src, want)
		}
		if strings.Contains(csp, "unsafe-eval") || strings.Contains(strings.Join(scriptSrc, " "), "unsafe-inline") {
			t.Errorf("CSP too loose: %s", csp)
		}
	}
}

func TestDocumentContents(t *testing.T) {
	_, a := newTestAPI(t)
	j1, err := a.JSON()
	if err != nil {
		t.Fatal(err)
	}
	j2, _ := a.JSON()
	if !bytes.Equal(j1, j2) {
		t.Fatal("document is not deterministic")
	}
	var doc map[string]any
	if err := json.Unmarshal(j1, &doc); err != nil {
		t.Fatal(err)
	}
	s := string(j1)
	for _, want := range []string{
		`"/things/{id}"`, `"/plain/{name}"`, `"/v1/things/{id}"`, `"operationId": "get-things-by-id"`,
		`"$ref": "#/components/schemas/Order"`, `"$ref": "#/components/schemas/ErrorModel"`,
		`"format": "email"`, `"format": "uuid"`, `"pattern": "^[0-9]{5}$"`, `"enum": [`, `"minimum": 1`, `"maximum": 100`,
		`"default": 10`, `"examples": [`, `"description": "Customer name"`, `"required": [`, `"in": "cookie"`, `"in": "header"`,
		`"multipart/form-data"`, `"format": "binary"`, `"securitySchemes"`, `"Location"`, `"201"`, `"204"`, `"422"`, `"415"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	y, err := a.YAML()
	if err != nil || !strings.Contains(string(y), `"openapi": "3.1.0"`) {
		t.Fatalf("yaml: %v\n%.300s", err, y)
	}
}

func TestSameNamedTypes(t *testing.T) {
	type Item struct {
		A string `json:"a"`
	}
	a := api.New(plinth.Bare(), api.Config{OpenAPIPath: "-"})
	api.Register(a, api.Operation{Method: "GET", Path: "/a"}, func(context.Context, *struct{}) (*Item, error) { return &Item{}, nil })
	api.Register(a, api.Operation{Method: "GET", Path: "/b"}, func(context.Context, *struct{}) (*otherItem, error) { return &otherItem{}, nil })
	j, _ := a.JSON()
	if !strings.Contains(string(j), `"Item"`) || !strings.Contains(string(j), `"otherItem"`) {
		t.Fatalf("%s", j)
	}
}

type otherItem struct {
	B int `json:"b"`
}

func TestYAMLEscapes(t *testing.T) {
	a := api.New(plinth.Bare(), api.Config{OpenAPIPath: "-", Title: "a: \"b\"\n- c #d", Description: ""})
	y, err := a.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), `"title": "a: \"b\"\n- c #d"`) {
		t.Fatalf("%s", y)
	}
}

var _ = io.EOF

// TestDecoderReuse alternates bodies with leading and trailing blanks, bad
// bodies and good ones, serially and in parallel, so that pooled decoders
// are reused across every kind of previous body.
func TestDecoderReuse(t *testing.T) {
	app, _ := newTestAPI(t)
	bodies := []struct {
		body   string
		status int
	}{
		{`{"name":"Ada","qty":2}`, 201},
		{"  \n{\"name\":\"Bob\",\"qty\":3}\n\n \t", 201},
		{`{"name":"Ada","qty":2} x`, 400},
		{`{"name":"Cy","qty":4}`, 201},
		{`{"name":"Ada","qty":"x"}`, 422},
		{`{"name":"Di","qty":5}` + strings.Repeat(" ", 3000), 201},
		{`{"name":"Ed","qty":6}`, 201},
		{`{"name":"Ada","qty":2}}`, 400},
	}
	run := func(t *testing.T, i int) {
		b := bodies[i%len(bodies)]
		req := httptest.NewRequest("POST", "/orders", strings.NewReader(b.body))
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != b.status {
			t.Errorf("body %q: %d, want %d: %s", b.body, rec.Code, b.status, rec.Body)
		}
		if b.status == 201 && !strings.Contains(rec.Body.String(), `"qty":`) {
			t.Errorf("body %q: %s", b.body, rec.Body)
		}
	}
	for i := 0; i < 40; i++ {
		run(t, i)
	}
	t.Run("parallel", func(t *testing.T) {
		for w := 0; w < 4; w++ {
			t.Run(fmt.Sprint(w), func(t *testing.T) {
				t.Parallel()
				for i := 0; i < 100; i++ {
					run(t, i+w)
				}
			})
		}
	})
}
