package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/racetest"
)

// User is the 5-field validated body of the validated-json scenario.
type User struct {
	Name  string `json:"name" validate:"required,minLength=1,maxLength=50"`
	Email string `json:"email" validate:"required,format=email"`
	Age   int    `json:"age" validate:"min=0,max=150"`
	Role  string `json:"role" validate:"enum=admin|user|guest"`
	Code  string `json:"code" validate:"pattern=^[A-Z]{3}$"`
}

type createUserIn struct{ Body User }

type userOut struct {
	Body *User
}

type itemIn struct {
	ID    int    `path:"id" validate:"min=1"`
	Limit int    `query:"limit" default:"10" validate:"min=1,max=100"`
	Sort  string `query:"sort" validate:"enum=asc|desc"`
}

type itemOut struct {
	ID    int    `json:"id"`
	Limit int    `json:"limit"`
	Sort  string `json:"sort"`
}

func allocApp(allowUnknown bool) *plinth.App {
	app := plinth.Bare()
	a := api.New(app, api.Config{OpenAPIPath: "-", AllowUnknownFields: allowUnknown})
	api.Register(a, api.Operation{Method: "GET", Path: "/items/{id}"}, func(ctx context.Context, in *itemIn) (*itemOut, error) {
		return &itemOut{in.ID, in.Limit, in.Sort}, nil
	})
	api.Register(a, api.Operation{Method: "POST", Path: "/users"}, func(ctx context.Context, in *createUserIn) (*userOut, error) {
		return &userOut{Body: &in.Body}, nil
	})
	// The same body bound by native handlers: a Binder built once, and the
	// generic Bind with its per-type cache.
	b := api.NewBinder[User](api.Config{AllowUnknownFields: allowUnknown})
	app.Post("/native/users", func(c *plinth.Ctx) error {
		var u User
		if err := b.Bind(c, &u); err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, &u)
	})
	app.Post("/native/generic", func(c *plinth.Ctx) error {
		u, err := api.Bind[User](c)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, u)
	})
	app.Build()
	return app
}

const userJSON = `{"name":"Ada Lovelace","email":"ada@example.com","age":36,"role":"admin","code":"ABC"}`

// resettableRecorder is a ResponseWriter that allocates nothing per request.
type resettableRecorder struct {
	h    http.Header
	code int
	n    int
}

func (r *resettableRecorder) Header() http.Header { return r.h }
func (r *resettableRecorder) WriteHeader(c int)   { r.code = c }
func (r *resettableRecorder) Write(b []byte) (int, error) {
	r.n += len(b)
	return len(b), nil
}

func TestAllocationBudgets(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under -race")
	}
	for _, allowUnknown := range []bool{false, true} {
		app := allocApp(allowUnknown)
		w := &resettableRecorder{h: http.Header{}}
		get := httptest.NewRequest("GET", "/items/42?limit=20&sort=asc", nil)
		body := strings.NewReader(userJSON)
		post := httptest.NewRequest("POST", "/users", body)
		post.Header.Set("Content-Type", "application/json")
		native := httptest.NewRequest("POST", "/native/users", body)
		native.Header.Set("Content-Type", "application/json")
		generic := httptest.NewRequest("POST", "/native/generic", body)
		generic.Header.Set("Content-Type", "application/json")
		cases := []struct {
			name   string
			budget float64
			run    func()
		}{
			// new(In), the *Out and its interface conversion for the encoder.
			{"GET path+query", 2, func() {
				clear(w.h)
				app.ServeHTTP(w, get)
			}},
			// new(In), the four decoded strings, the *Out (pooled buffers and
			// JSON decoders; validation allocates nothing when it passes).
			// This App has no body limit and is not served by Serve: with a
			// limit or a body read timeout in force, the core's body guard
			// adds the request copy and the body reader (2 more).
			{"POST 5-field validated", 6, func() {
				clear(w.h)
				body.Reset(userJSON)
				app.ServeHTTP(w, post)
			}},
			// The native handler binding the same body with a Binder: the
			// User (it escapes into the decoder) and the four strings.
			{"native Binder.Bind", 5, func() {
				clear(w.h)
				body.Reset(userJSON)
				app.ServeHTTP(w, native)
			}},
			// Bind[User]: the same; the type cache look-up allocates nothing.
			{"native Bind[T]", 5, func() {
				clear(w.h)
				body.Reset(userJSON)
				app.ServeHTTP(w, generic)
			}},
		}
		for _, tc := range cases {
			tc.run()
			if w.code != 200 && w.code != 201 {
				t.Fatalf("%s: status %d", tc.name, w.code)
			}
			n := testing.AllocsPerRun(200, tc.run)
			t.Logf("%s (allowUnknown=%v): %.0f allocs/op", tc.name, allowUnknown, n)
			if n > tc.budget {
				t.Errorf("%s (allowUnknown=%v): %.0f allocs/op, budget %.0f", tc.name, allowUnknown, n, tc.budget)
			}
		}
	}
}

type paramsIn struct {
	ID    int    `path:"id" validate:"min=1"`
	Limit int    `query:"limit" default:"10" validate:"min=1,max=100"`
	Sort  string `query:"sort" validate:"enum=asc|desc"`
	Trace string `header:"X-Trace" validate:"maxLength=32"`
	Sess  string `cookie:"sid" validate:"minLength=2"`
}

type paramsOut struct {
	Status int
	Total  int `header:"X-Total"`
	Body   *itemOut
}

// paramsApp serves GET /things/{id}, a typed operation that binds a
// parameter of every source and answers with a header and a JSON body.
func paramsApp() *plinth.App {
	app := plinth.Bare()
	a := api.New(app, api.Config{OpenAPIPath: "-"})
	api.Register(a, api.Operation{Method: "GET", Path: "/things/{id}"}, func(ctx context.Context, in *paramsIn) (*paramsOut, error) {
		return &paramsOut{Total: in.Limit, Body: &itemOut{in.ID, in.Limit, in.Sort}}, nil
	})
	app.Build()
	return app
}
