package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/api"
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
	if n := testing.AllocsPerRun(100, func() { c.Check(nil, &ok) }); n != 0 && !raceEnabled {
		t.Errorf("a valid value costs %v allocations", n)
	}

	short := "x"
	bad := signup{Age: 12, Contacts: []Contact{{Email: "b@example.com"}, {Email: "nope"}}, Nick: &short}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Accept-Language", "fr")
	errs := c.Check(r, &bad)
	got := fmt.Sprint(errs)
	for _, want := range []string{"email: est obligatoire", "age: must be at least 18", "contacts[1].email: must be a valid email", "nick: must be at least 2 characters long"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q: %s", want, got)
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
