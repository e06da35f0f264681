// Package conformance checks the documents that the api package generates
// with an independent OpenAPI validator (kin-openapi), and sends bad bodies
// to every JSON operation they list. It is in the bench module so that the
// validator stays out of Plinth's go.mod.
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

type Address struct {
	Street string `json:"street" validate:"required,maxLength=40" doc:"Street and number" example:"1 Main St"`
	Zip    string `json:"zip" validate:"pattern=^[0-9]{5}$" example:"12345"`
}

type Contact struct {
	Email string `json:"email" validate:"required,format=email" example:"ada@example.com"`
	Site  string `json:"site,omitempty" validate:"format=uri"`
}

type Node struct {
	Name     string  `json:"name" validate:"required"`
	Children []*Node `json:"children,omitempty" validate:"maxItems=10"`
}

type Order struct {
	Name     string            `json:"name" validate:"required,minLength=2,maxLength=20" doc:"Customer name" example:"Ada"`
	Qty      int               `json:"qty" validate:"min=1,max=100" example:"2"`
	Price    float64           `json:"price" validate:"exclusiveMin=0" example:"9.5"`
	Kind     string            `json:"kind,omitempty" validate:"enum=small|large" example:"small"`
	Level    int               `json:"level,omitempty" validate:"enum=1|2|3"`
	ID       string            `json:"id,omitempty" validate:"format=uuid"`
	When     time.Time         `json:"when,omitzero"`
	Day      string            `json:"day,omitempty" validate:"format=date"`
	Tags     []string          `json:"tags,omitempty" validate:"maxItems=3,maxLength=5" example:"a,b"`
	Contacts []Contact         `json:"contacts,omitempty" validate:"minItems=1"`
	Address  *Address          `json:"address,omitempty"`
	Meta     map[string]string `json:"meta,omitempty" validate:"maxItems=5"`
	Tree     *Node             `json:"tree,omitempty"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Blob     []byte            `json:"blob,omitempty"`
	Any      any               `json:"any,omitempty"`
}

type orderIn struct {
	Trace   string `header:"X-Trace" validate:"maxLength=32" doc:"Trace ID"`
	Dry     bool   `query:"dry"`
	Session string `cookie:"sid"`
	Body    Order
}

type orderOut struct {
	Status   int
	Location string    `header:"Location" doc:"URL of the order"`
	Count    int       `header:"X-Count"`
	When     time.Time `header:"X-When"`
	Body     *Order
}

type findIn struct {
	ID     int       `path:"id" validate:"min=1" doc:"Order ID" example:"7"`
	Limit  int       `query:"limit" default:"10" validate:"min=1,max=100"`
	Sort   string    `query:"sort" default:"asc" validate:"enum=asc|desc"`
	Tags   []string  `query:"tag" validate:"maxItems=4"`
	Since  time.Time `query:"since"`
	Ratio  *float64  `query:"ratio" validate:"min=0,max=1"`
	Small  uint8     `query:"small"`
	Header []int     `header:"X-Ids"`
}

type patchIn struct {
	ID   int `path:"id"`
	Body *struct {
		Name *string `json:"name,omitempty" validate:"minLength=2"`
		Qty  *int    `json:"qty,omitempty" validate:"min=1"`
	}
}

type listIn struct {
	Body []Contact `validate:"minItems=1,maxItems=10"`
}

type uploadIn struct {
	Body struct {
		Title string                  `form:"title" validate:"required,maxLength=10"`
		Count int                     `form:"count" default:"1" validate:"max=5"`
		File  *multipart.FileHeader   `form:"file"`
		More  []*multipart.FileHeader `form:"more"`
	}
}

type formIn struct {
	Body struct {
		Name string   `form:"name" validate:"required"`
		Tags []string `form:"tag"`
	}
}

type page[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// featureApp is an App with every feature the document describes.
func featureApp() (*plinth.App, *api.API) {
	app := plinth.New()
	a := api.New(app, api.Config{Title: "Conformance", Version: "1.2.3", Description: "Every feature.",
		Servers:         []api.Server{{URL: "https://api.example.com", Description: "production"}},
		SecuritySchemes: map[string]api.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT"}, "key": {Type: "apiKey", In: "header", Name: "X-API-Key"}}})
	app.Get("/plain/{name}", func(c *plinth.Ctx) error { return c.Text(200, "hi") })
	app.Get("/files/{path...}", func(c *plinth.Ctx) error { return c.Text(200, "file") })
	app.Post("/plain", func(c *plinth.Ctx) error { return c.NoContent(204) })
	app.Get("/{$}", func(c *plinth.Ctx) error { return c.Text(200, "root") })

	api.Register(a, api.Operation{Method: "POST", Path: "/orders", Summary: "Create", Description: "Creates an order.", Tags: []string{"orders"},
		Security: []map[string][]string{{"bearer": nil}, {"key": {}}}},
		func(ctx context.Context, in *orderIn) (*orderOut, error) {
			return &orderOut{Location: "/orders/1", Count: 1, Body: &in.Body}, nil
		})
	api.Register(a, api.Operation{Method: "GET", Path: "/orders/{id}", Deprecated: true},
		func(ctx context.Context, in *findIn) (*Order, error) { return &Order{Name: "x", Qty: in.Limit}, nil })
	api.Register(a, api.Operation{Method: "PATCH", Path: "/orders/{id}"},
		func(ctx context.Context, in *patchIn) (*Order, error) { return &Order{}, nil })
	api.Register(a, api.Operation{Method: "PUT", Path: "/contacts"},
		func(ctx context.Context, in *listIn) (*page[Contact], error) {
			return &page[Contact]{Items: in.Body}, nil
		})
	api.Register(a, api.Operation{Method: "POST", Path: "/upload", MaxBodyBytes: 1 << 16},
		func(ctx context.Context, in *uploadIn) (*struct{ Body string }, error) {
			return &struct{ Body string }{"ok"}, nil
		})
	api.Register(a, api.Operation{Method: "POST", Path: "/form", DefaultStatus: 202},
		func(ctx context.Context, in *formIn) (*struct{}, error) { return nil, nil })
	a.Group("/v1", func(g *api.Group) {
		api.Register(g, api.Operation{Method: "POST", Path: "/trees"},
			func(ctx context.Context, in *struct{ Body Node }) (*Node, error) { return &in.Body, nil })
		api.Register(g, api.Operation{Method: "DELETE", Path: "/trees/{id}"},
			func(ctx context.Context, in *struct {
				ID string `path:"id"`
			}) (*struct{}, error) {
				return nil, nil
			})
	})
	return app, a
}

func TestFeatureDocumentValidates(t *testing.T) {
	app, _ := featureApp()
	srv := httptest.NewServer(app)
	defer srv.Close()
	checkServer(t, srv.URL, 4)
}

// TestQuickstart builds and runs examples/quickstart, then checks its
// document, its docs page and its JSON operations.
func TestQuickstart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the quickstart")
	}
	bin := filepath.Join(t.TempDir(), "quickstart")
	build := exec.Command("go", "build", "-o", bin, "./examples/quickstart")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PLINTH_ADDR="+addr, "PLINTH_DATABASE_URL=sqlite:"+filepath.Join(t.TempDir(), "notes.db"))
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := "http://" + addr
	for i := 0; ; i++ {
		res, err := http.Get(base + "/openapi.json")
		if err == nil {
			res.Body.Close()
			break
		}
		if i > 100 {
			t.Fatalf("quickstart did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	checkServer(t, base, 2)
}

// checkServer validates the JSON and YAML documents served at base, checks
// the docs page, and sends bad bodies to every JSON operation.
func checkServer(t *testing.T, base string, minJSONOps int) {
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
		}
		return res, b
	}
	_, j := get("/openapi.json")
	_, y := get("/openapi.yaml")
	docs, page := get("/docs")
	if !strings.Contains(string(page), `data-url="/openapi.json"`) || !strings.Contains(docs.Header.Get("Content-Security-Policy"), "cdn.jsdelivr.net") {
		t.Errorf("docs page: %s\nCSP %s", page, docs.Header.Get("Content-Security-Policy"))
	}

	ctx := context.Background()
	var docs3 []*openapi3.T
	for name, data := range map[string][]byte{"json": j, "yaml": y} {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(data)
		if err != nil {
			t.Fatalf("%s: load: %v", name, err)
		}
		if err := doc.Validate(ctx, openapi3.EnableExamplesValidation(), openapi3.EnableSchemaDefaultsValidation(), openapi3.EnableSchemaPatternValidation()); err != nil {
			t.Fatalf("%s: the document does not validate: %v", name, err)
		}
		if doc.OpenAPI != "3.1.0" {
			t.Errorf("%s: openapi %q", name, doc.OpenAPI)
		}
		docs3 = append(docs3, doc)
	}
	a, _ := json.Marshal(docs3[0])
	b, _ := json.Marshal(docs3[1])
	if !bytes.Equal(a, b) {
		t.Errorf("the JSON and YAML documents differ")
	}

	// Bad bodies to every JSON operation.
	var raw map[string]map[string]map[string]any
	if err := json.Unmarshal(j, &struct {
		Paths *map[string]map[string]map[string]any `json:"paths"`
	}{&raw}); err != nil {
		t.Fatal(err)
	}
	n := 0
	paths := make([]string, 0, len(raw))
	for p := range raw {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for method, op := range raw[p] {
			rb, _ := op["requestBody"].(map[string]any)
			content, _ := rb["content"].(map[string]any)
			if _, ok := content["application/json"]; !ok {
				continue
			}
			n++
			url := base + strings.NewReplacer("{id}", "1", "{name}", "x", "{path}", "x").Replace(p)
			for _, body := range badBodies(docs3[0], p, method) {
				req, _ := http.NewRequest(strings.ToUpper(method), url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(res.Body)
				res.Body.Close()
				ct := res.Header.Get("Content-Type")
				switch {
				case res.StatusCode == 400 && ct == "application/problem+json":
				case res.StatusCode == 422 && ct == "application/problem+json" && bytes.Contains(got, []byte(`"errors":[`)):
				default:
					t.Errorf("%s %s with %q: %d %s %s", method, p, body, res.StatusCode, ct, got)
				}
			}
		}
	}
	if n < minJSONOps {
		t.Errorf("only %d JSON operations found, want at least %d", n, minJSONOps)
	}
}

// badBodies returns malformed bodies and, for object schemas, bodies with
// each property of the wrong type.
func badBodies(doc *openapi3.T, path, method string) []string {
	out := []string{`{`, `{"a":`, `[1,`, `"unterminated`, `nul`, `{}}`, `{} {}`, "\x00", `{"zzz_unknown":1}`, `42`, `"text"`, `true`}
	op := doc.Paths.Find(path).GetOperation(strings.ToUpper(method))
	s := op.RequestBody.Value.Content["application/json"].Schema.Value
	if s.Type.Is("array") {
		out = append(out, `{}`, `[42]`, `[]`)
		return out
	}
	out = append(out, `[]`)
	for name, ps := range s.Properties {
		wrong := `{}`
		if ps.Value.Type.Is("object") || ps.Value.Type.Is("array") {
			wrong = `"x"`
		}
		out = append(out, fmt.Sprintf(`{%q:%s}`, name, wrong), fmt.Sprintf(`{%q:[[[]]]}`, name))
	}
	return out
}
