package bench

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/plinthtest"
)

// BenchmarkTestClient compares plinthtest's in-process client with the
// hand-written httptest.NewRequest + httptest.NewRecorder + app.ServeHTTP
// for a JSON request answered with JSON (the budget: at most 2 allocations
// and 10 % time more). client=plinthtest-openapi sends the same request to
// a typed api operation with the OpenAPI check on, client=plinthtest-skip
// with it off: their difference is the check's cost per response.
// Regenerate: cd bench && go test -run '^$' -bench TestClient -benchmem -count 6 | tee /tmp/tc.txt && benchstat -col /client /tmp/tc.txt
func BenchmarkTestClient(b *testing.B) {
	const body = `{"name":"Ada"}`
	plain := plinth.New()
	plain.Post("/echo", func(c *plinth.Ctx) error {
		return c.JSON(200, map[string]string{"message": "Hello, World!"})
	})
	b.Run("client=httptest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest("POST", "/echo", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			plain.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatal(rec.Code)
			}
		}
	})
	b.Run("client=plinthtest", func(b *testing.B) {
		c := plinthtest.New(b, plain, plinthtest.Config{})
		b.ReportAllocs()
		for b.Loop() {
			c.PostJSON("/echo", body).Status(200)
		}
	})
	typed := typedApp()
	for _, tc := range []struct {
		name string
		skip bool
	}{{"client=plinthtest-skip", true}, {"client=plinthtest-openapi", false}} {
		b.Run(tc.name, func(b *testing.B) {
			c := plinthtest.New(b, typed, plinthtest.Config{SkipOpenAPI: tc.skip})
			b.ReportAllocs()
			for b.Loop() {
				c.PostJSON("/echo", body).Status(201)
			}
		})
	}
}

type tcIn struct {
	Body struct {
		Name string `json:"name" validate:"required"`
	}
}

type tcOut struct {
	Message string   `json:"message"`
	Tags    []string `json:"tags"`
	Count   int      `json:"count"`
}

// typedApp is the JSON scenario as a typed operation in an OpenAPI
// document.
func typedApp() *plinth.App {
	app := plinth.New()
	a := api.New(app, api.Config{Title: "bench"})
	api.Register(a, api.Operation{Method: "POST", Path: "/echo"}, func(ctx context.Context, in *tcIn) (*tcOut, error) {
		return &tcOut{Message: "Hello, " + in.Body.Name + "!", Tags: []string{"a", "b"}, Count: 2}, nil
	})
	return app
}
