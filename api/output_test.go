package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// level is a header value rendered by its String method.
type level struct{ n int }

func (l level) String() string { return fmt.Sprintf("L%d", l.n) }

// rank is an integer with a String method: as a header, its number.
type rank int

func (r rank) String() string { return "rank" }

type headersOut struct {
	Status int
	Small  int8      `header:"X-Small"`
	Big    uint16    `header:"X-Big"`
	Flag   bool      `header:"X-Flag"`
	Maybe  *string   `header:"X-Maybe"`
	Absent *int      `header:"X-Absent"`
	When   time.Time `header:"X-When"`
	Level  level     `header:"X-Level"`
	Rank   rank      `header:"X-Rank"`
	Empty  string    `header:"X-Empty"`
	Body   string
}

// closer is a body reader that records that it was closed.
type closer struct {
	io.Reader
	closed *bool
}

func (c closer) Close() error { *c.closed = true; return nil }

type readerOut struct {
	Body io.Reader
}

type patchOut struct {
	ContentType string `header:"Content-Type"`
	Body        *Order
}

type bytesOut struct {
	Body []byte
}

func outputApp(closed *bool) *plinth.App {
	app := plinth.Bare()
	a := api.New(app, api.Config{})
	maybe := "yes"
	api.Register(a, api.Operation{Method: "GET", Path: "/headers"}, func(context.Context, *struct{}) (*headersOut, error) {
		return &headersOut{Status: 203, Small: -3, Big: 65000, Flag: true, Maybe: &maybe,
			When: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), Level: level{2}, Rank: 7, Body: "hello"}, nil
	})
	api.Register(a, api.Operation{Method: "GET", Path: "/reader"}, func(_ context.Context, in *struct {
		Nil bool `query:"nil"`
	}) (*readerOut, error) {
		if in.Nil {
			return &readerOut{}, nil
		}
		return &readerOut{Body: closer{strings.NewReader("stream"), closed}}, nil
	})
	api.Register(a, api.Operation{Method: "PATCH", Path: "/patch"}, func(_ context.Context, in *struct {
		Nil bool `query:"nil"`
	}) (*patchOut, error) {
		if in.Nil {
			return &patchOut{ContentType: "application/merge-patch+json"}, nil
		}
		return &patchOut{ContentType: "application/merge-patch+json", Body: &Order{Name: "Ada", Qty: 1}}, nil
	})
	api.Register(a, api.Operation{Method: "GET", Path: "/bytes"}, func(context.Context, *struct{}) (*bytesOut, error) {
		return &bytesOut{Body: []byte{1, 2}}, nil
	})
	api.Register(a, api.Operation{Method: "GET", Path: "/json"}, func(context.Context, *struct{}) (*Order, error) {
		return &Order{Name: "Ada"}, nil
	})
	return app
}

func TestOutputs(t *testing.T) {
	var closed bool
	app := outputApp(&closed)
	cases := []struct {
		path     string
		status   int
		contains []string
		absent   []string
	}{
		{"/headers", 203, []string{"X-Small: -3", "X-Big: 65000", "X-Flag: true", "X-Maybe: yes", "X-When: 2024-05-01T10:00:00Z",
			"X-Level: L2", "X-Rank: 7", "Content-Type: text/plain; charset=utf-8", "\n\nhello"}, []string{"X-Absent", "X-Empty"}},
		{"/reader", 200, []string{"Content-Type: application/octet-stream", "\n\nstream"}, nil},
		{"/reader?nil=true", 200, nil, []string{"Content-Type"}},
		{"/patch", 200, []string{"Content-Type: application/merge-patch+json", `"name":"Ada"`}, nil},
		{"/patch?nil=true", 200, nil, []string{`"name"`}},
		{"/bytes", 200, []string{"Content-Type: application/octet-stream", "\n\n\x01\x02"}, nil},
		{"/json", 200, []string{"Content-Type: application/json", `"name":"Ada"`}, nil},
	}
	for _, tc := range cases {
		method := "GET"
		if strings.HasPrefix(tc.path, "/patch") {
			method = "PATCH"
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest(method, tc.path, nil))
		dump := dumpResponse(rec)
		if rec.Code != tc.status {
			t.Errorf("%s: status %d, want %d\n%s", tc.path, rec.Code, tc.status, dump)
		}
		for _, s := range tc.contains {
			if !strings.Contains(dump, s) {
				t.Errorf("%s: lacks %q\n%s", tc.path, s, dump)
			}
		}
		for _, s := range tc.absent {
			if strings.Contains(dump, s) {
				t.Errorf("%s: has %q\n%s", tc.path, s, dump)
			}
		}
	}
	if !closed {
		t.Error("the body reader was not closed")
	}
}

// TestOutputDocument checks the success responses in the document: the
// Out's headers (Content-Type excluded) and the media type of each kind of
// body.
func TestOutputDocument(t *testing.T) {
	var closed bool
	app := outputApp(&closed)
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]any
				Content map[string]any
			}
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	h := doc.Paths["/headers"]["get"].Responses["200"]
	if len(h.Headers) != 9 || h.Headers["X-When"] == nil || h.Content["text/plain"] == nil {
		t.Errorf("/headers: %+v", h)
	}
	if r := doc.Paths["/reader"]["get"].Responses["200"]; r.Content["application/octet-stream"] == nil {
		t.Errorf("/reader: %+v", r)
	}
	if r := doc.Paths["/patch"]["patch"].Responses["200"]; r.Headers != nil || r.Content["application/json"] == nil {
		t.Errorf("/patch: %+v", r)
	}
	if r := doc.Paths["/bytes"]["get"].Responses["200"]; r.Content["application/octet-stream"] == nil {
		t.Errorf("/bytes: %+v", r)
	}
}

func TestOutputRegistrationPanics(t *testing.T) {
	cases := map[string]struct {
		fn   func(a *api.API)
		want string
	}{
		"status not an int": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct{}) (*struct {
				Status string
				Body   string
			}, error) {
				return nil, nil
			})
		}, "Status must be an int"},
		"header type": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct{}) (*struct {
				M map[string]int `header:"X-M"`
			}, error) {
				return nil, nil
			})
		}, "cannot be of type"},
		"header pointer type": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct{}) (*struct {
				M *[]int `header:"X-M"`
			}, error) {
				return nil, nil
			})
		}, "cannot be of type"},
		"unexported header": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct{}) (*struct {
				m string `header:"X-M"`
			}, error) {
				return nil, nil
			})
		}, "not exported"},
		"output rule": {func(a *api.API) {
			api.Register(a, api.Operation{Method: "GET", Path: "/x"}, func(context.Context, *struct{}) (*struct {
				N int `json:"n" validate:"minLength=1"`
			}, error) {
				return nil, nil
			})
		}, "does not apply"},
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
