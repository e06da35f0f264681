package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/racetest"
)

type signup struct {
	Email    string    `json:"email" validate:"required,format=email"`
	Age      int       `json:"age" validate:"min=18,max=150"`
	Contacts []Contact `json:"contacts" validate:"maxItems=3"`
	Nick     *string   `json:"nick,omitempty" validate:"minLength=2"`
}

func TestChecker(t *testing.T) {
	c := api.NewChecker[signup](api.Config{Message: func(r *http.Request, code, param string) string {
		if r != nil && r.Header.Get("Accept-Language") == "fr" && code == "required" {
			return "est obligatoire"
		}
		return ""
	}})
	ok := signup{Email: "ada@example.com", Age: 36, Contacts: []Contact{{Email: "b@example.com"}}}
	if errs := c.Check(nil, &ok); errs != nil {
		t.Fatalf("valid value: %v", errs)
	}
	if n := testing.AllocsPerRun(100, func() { c.Check(nil, &ok) }); n != 0 && !racetest.Enabled {
		t.Errorf("a valid value costs %v allocations", n)
	}

	short := "x"
	bad := signup{Age: 12, Contacts: []Contact{{Email: "b@example.com"}, {Email: "nope"}}, Nick: &short}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Accept-Language", "fr")
	errs := c.Check(r, &bad)
	got := fmt.Sprint(errs)
	for i, want := range []string{"body.email: est obligatoire", "body.age: must be at least 18", "body.contacts[1].email: must be a valid email", "body.nick: must be at least 2 characters long"} {
		if i >= len(errs) || errs[i].Error() != want {
			t.Errorf("error %d is not %q: %s", i, want, got)
		}
	}
	if errs[1].Value != 12 {
		t.Errorf("value of age: %#v", errs[1].Value)
	}
	if e := errs.Error(); !strings.Contains(e, "; ") || !strings.HasPrefix(e, errs[0].Error()) {
		t.Errorf("FieldErrors.Error: %q", e)
	}

	// No rules at all: every value passes.
	if errs := api.NewChecker[struct{ A string }](api.Config{}).Check(nil, &struct{ A string }{}); errs != nil {
		t.Errorf("no rules: %v", errs)
	}
}

func TestCheckerPanics(t *testing.T) {
	for name, fn := range map[string]func(){
		"not a struct": func() { api.NewChecker[[]string](api.Config{}) },
		"bad tag": func() {
			api.NewChecker[struct {
				N int `validate:"maxLength=2"`
			}](api.Config{})
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "api: NewChecker") {
					t.Fatalf("panic %v", r)
				}
			}()
			fn()
		})
	}
}

// TestCheckerLocatesAsBinder: the same invalid value, checked by a Checker
// or sent as the JSON body of a Binder, gives the same locations and
// messages, so that a client reads one scheme ("body.email") in every 422.
func TestCheckerLocatesAsBinder(t *testing.T) {
	short := "x"
	bad := signup{Age: 12, Contacts: []Contact{{Email: "b@example.com"}, {Email: "nope"}}, Nick: &short}
	checked := api.NewChecker[signup](api.Config{}).Check(nil, &bad)

	app := plinth.Bare()
	binder := api.NewBinder[signup](api.Config{})
	app.Post("/signup", func(c *plinth.Ctx) error {
		var in signup
		if err := binder.Bind(c, &in); err != nil {
			return err
		}
		return c.NoContent(http.StatusNoContent)
	})
	body := `{"age":12,"contacts":[{"email":"b@example.com"},{"email":"nope"}],"nick":"x"}`
	req := httptest.NewRequest("POST", "/signup", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	var p struct{ Errors []*api.FieldError }
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || rec.Code != 422 {
		t.Fatalf("binder: %d %s", rec.Code, rec.Body)
	}
	texts := func(es []*api.FieldError) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Error())
		}
		slices.Sort(out)
		return out
	}
	if c, b := texts(checked), texts(p.Errors); !slices.Equal(c, b) {
		t.Errorf("Checker located\n\t%q\nBinder located\n\t%q", c, b)
	}
}
