package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// color is a parameter type read by its UnmarshalText method.
type color struct{ r, g, b uint8 }

func (c *color) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "#%02x%02x%02x", &c.r, &c.g, &c.b)
	return err
}

// paging is embedded in kindsIn: its parameters are promoted.
type paging struct {
	Page int `query:"page" default:"1" validate:"min=1"`
}

type kindsIn struct {
	paging
	I8    int8     `query:"i8"`
	I16   int16    `query:"i16"`
	I32   int32    `query:"i32"`
	I64   int64    `query:"i64"`
	U     uint     `query:"u"`
	U16   uint16   `query:"u16"`
	U32   uint32   `query:"u32"`
	U64   uint64   `query:"u64"`
	UP    uintptr  `query:"up"`
	F32   *float32 `query:"f32" validate:"exclusiveMin=0,exclusiveMax=1"`
	B     bool     `query:"b"`
	PI    *int     `query:"pi" validate:"required"`
	Color color    `query:"color"`
	Small []int8   `header:"X-Small"`
	Level *int     `query:"level" validate:"enum=1|2|3"`
	Tags  []string `query:"tag" default:"a,b"`
	Sess  string   `cookie:"sid" default:"anon"`
}

type kindsOut struct {
	Page  int
	Sum   float64
	B     bool
	PI    int
	Color string
	Small []int8
	Level *int
	Tags  []string
	Sess  string
}

func kindsApp() *plinth.App {
	app := plinth.Bare()
	a := api.New(app, api.Config{OpenAPIPath: "-"})
	api.Register(a, api.Operation{Method: "GET", Path: "/kinds"}, func(_ context.Context, in *kindsIn) (*kindsOut, error) {
		sum := float64(in.I8) + float64(in.I16) + float64(in.I32) + float64(in.I64) + float64(in.U) + float64(in.U16) +
			float64(in.U32) + float64(in.U64) + float64(in.UP)
		if in.F32 != nil {
			sum += float64(*in.F32)
		}
		return &kindsOut{in.Page, sum, in.B, *in.PI, fmt.Sprintf("%d,%d,%d", in.Color.r, in.Color.g, in.Color.b),
			in.Small, in.Level, in.Tags, in.Sess}, nil
	})
	return app
}

func TestParameterKinds(t *testing.T) {
	app := kindsApp()
	rows := []struct {
		name, query string
		header      map[string]string
		status      int
		contains    []string
	}{
		{"every kind", "i8=-1&i16=2&i32=3&i64=4&u=5&u16=6&u32=7&u64=8&up=9&f32=0.5&b=true&pi=7&color=%23ff0080&level=2", map[string]string{"X-Small": "1, -2"},
			200, []string{`"Page":1`, `"Sum":43.5`, `"B":true`, `"PI":7`, `"Color":"255,0,128"`, `"Small":[1,-2]`, `"Level":2`, `"Tags":["a","b"]`, `"Sess":"anon"`}},
		{"embedded and list values", "pi=1&page=3&tag=x&tag=&tag=y", map[string]string{"Cookie": "sid=s1"},
			200, []string{`"Page":3`, `"Tags":["x","","y"]`, `"Sess":"s1"`}},
		{"repeated scalar takes the first", "pi=1&pi=2", nil, 200, []string{`"PI":1`}},
		{"an empty value is absent", "pi=&pi=4&page=", nil, 200, []string{`"PI":4`, `"Page":1`}},
		{"odd pairs are skipped", "pi=1&;x=1&=3&%zz=1", nil, 200, []string{`"PI":1`}},
		{"required pointer", "", nil, 422, []string{`"location":"query.pi"`, "is required"}},
		{"bad escape", "pi=%zz", nil, 422, []string{`"location":"query.pi"`, "must be an integer"}},
		{"out of range", "pi=1&i8=200&u16=70000&u=-1", nil, 422, []string{`"location":"query.i8"`, "from -128 to 127", `"location":"query.u16"`, "from 0 to 65535", `"location":"query.u"`, "non-negative"}},
		{"exclusive bounds", "pi=1&f32=1", nil, 422, []string{`"location":"query.f32"`, "must be less than 1"}},
		{"exclusive lower bound", "pi=1&f32=0", nil, 422, []string{"must be greater than 0"}},
		{"number enum", "pi=1&level=4", nil, 422, []string{`"location":"query.level"`, "must be one of: 1, 2, 3", `"value":4`}},
		{"bad bool and float and text", "pi=1&b=maybe&f32=x&color=red", nil, 422, []string{`"location":"query.b"`, "must be a boolean", `"location":"query.f32"`, "must be a number", `"location":"query.color"`, "must be a valid value"}},
		{"bad header list", "pi=1", map[string]string{"X-Small": "1,x"}, 422, []string{`"location":"header.X-Small"`, `"value":"x"`}},
		{"default of a pointer param fails rules", "pi=0&page=0", nil, 422, []string{`"location":"query.page"`, "must be at least 1"}},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/kinds?"+tc.query, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			for _, s := range tc.contains {
				if !strings.Contains(rec.Body.String(), s) {
					t.Errorf("lacks %q: %s", s, rec.Body)
				}
			}
		})
	}
}

// TestInputRegistrationPanics covers what Register refuses in an In type
// and in an Operation.
func TestInputRegistrationPanics(t *testing.T) {
	none := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	type many struct {
		Q00, Q01, Q02, Q03, Q04, Q05, Q06, Q07, Q08, Q09, Q10, Q11, Q12, Q13, Q14, Q15 int `query:""`
		Q16, Q17, Q18, Q19, Q20, Q21, Q22, Q23, Q24, Q25, Q26, Q27, Q28, Q29, Q30, Q31 int `query:""`
		Q32, Q33, Q34, Q35, Q36, Q37, Q38, Q39, Q40, Q41, Q42, Q43, Q44, Q45, Q46, Q47 int `query:""`
		Q48, Q49, Q50, Q51, Q52, Q53, Q54, Q55, Q56, Q57, Q58, Q59, Q60, Q61, Q62, Q63 int `query:""`
		Q64                                                                            int `query:""`
	}
	cases := map[string]struct {
		fn   func(a *api.API)
		want string
	}{
		"no method": {func(a *api.API) { api.Register(a, api.Operation{Path: "/x"}, none) }, "Method is required"},
		"bad path":  {func(a *api.API) { api.Register(a, api.Operation{Method: "GET", Path: "x"}, none) }, "must start with '/'"},
		"nil handler": {func(a *api.API) {
			api.Register[struct{}, struct{}](a, api.Operation{Method: "GET", Path: "/x"}, nil)
		}, "nil handler"},
		"nil ctx handler": {func(a *api.API) {
			api.RegisterCtx[struct{}, struct{}](a, api.Operation{Method: "GET", Path: "/x"}, nil)
		}, "nil handler"},
		"not a struct": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *[]int) (*struct{}, error) { return nil, nil })
		}, "must be a struct"},
		"path field without wildcard": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				ID int `path:"id"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "which the path does not have"},
		"two sources": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q int `query:"q" header:"Q"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "both query and header"},
		"unexported": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				q int `query:"q"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "not exported"},
		"slice path parameter": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x/{id}"}, func(context.Context, *struct {
				ID []int `path:"id"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "cannot be of type"},
		"list of maps": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q []map[string]int `query:"q"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "cannot be of type"},
		"rule of a parameter": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q string `query:"q" validate:"format=color"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "unknown format"},
		"two bodies": {func(a *api.API) {
			type inner struct{ Body string }
			api.Register(a, api.Operation{Method: "POST", Path: "/x"}, func(context.Context, *struct {
				inner
				Body string
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "two Body fields"},
		"pointer form": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "POST", Path: "/x"}, func(context.Context, *struct {
				Body *struct {
					A string `form:"a"`
				}
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "must not be a pointer"},
		"form field type": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "POST", Path: "/x"}, func(context.Context, *struct {
				Body struct {
					A map[string]int `form:"a"`
				}
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "form field A cannot be of type"},
		"form list type": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "POST", Path: "/x"}, func(context.Context, *struct {
				Body struct {
					A []map[string]int `form:"a"`
				}
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "form field A cannot be of type"},
		"form default": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "POST", Path: "/x"}, func(context.Context, *struct {
				Body struct {
					A int `form:"a" default:"x"`
				}
			}) (*struct{}, error) {
				return nil, nil
			})
		}, `default "x"`},
		"body rule": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "POST", Path: "/x"}, func(context.Context, *struct {
				Body []string `validate:"maxItems=x"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "field Body: maxItems needs a non-negative integer"},
		"body field rule": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "POST", Path: "/x"}, func(context.Context, *struct {
				Body struct {
					A string `json:"a" validate:"sometimes"`
				}
			}) (*struct{}, error) {
				return nil, nil
			})
		}, `unknown rule "sometimes"`},
		"enum of a number": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct {
				Q int `query:"q" validate:"enum=a|b"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "is not a number"},
		"more than 64 query parameters": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *many) (*struct{}, error) { return nil, nil })
		}, "more than 64"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Fatalf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.fn(api.New(plinth.Bare(), api.Config{OpenAPIPath: "-"}))
		})
	}
}

func TestConfigPanics(t *testing.T) {
	for _, cfg := range []api.Config{{OpenAPIPath: "openapi"}, {DocsPath: "/{docs}"}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "must be a path") {
					t.Errorf("%+v: panic %v", cfg, r)
				}
			}()
			api.New(plinth.Bare(), cfg)
		}()
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("New(nil) did not panic")
		}
	}()
	api.New(nil, api.Config{})
}

// TestGroups registers through nested groups and checks the paths, the
// groups' middleware, and API.App.
func TestGroups(t *testing.T) {
	app := plinth.Bare()
	a := api.New(app, api.Config{OpenAPIPath: "-"})
	if a.App() != app {
		t.Fatal("App")
	}
	a.Group("/v1", func(g *api.Group) {
		g.Router().Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
			return func(c *plinth.Ctx) error { c.Header().Add("X-Via", "v1"); return next(c) }
		})
		g.Group("/admin/", func(g *api.Group) {
			api.Register(g, api.Operation{Method: "get", Path: ""}, func(context.Context, *struct{}) (*Order, error) {
				return &Order{Name: "root"}, nil
			})
			api.Register(g, api.Operation{Method: "GET", Path: "/users/{id}"}, func(_ context.Context, in *struct {
				ID int `path:"id"`
			}) (*Order, error) {
				return &Order{Qty: in.ID}, nil
			})
		})
	})
	for path, want := range map[string]string{"/v1/admin": `"name":"root"`, "/v1/admin/users/5": `"qty":5`} {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) || rec.Header().Get("X-Via") != "v1" {
			t.Errorf("%s: %d %v %s", path, rec.Code, rec.Header(), rec.Body)
		}
	}
}
