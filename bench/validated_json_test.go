package bench

import (
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/bench/internal/validated"
)

// validatedJSON lists the frameworks of the validated-json scenario.
var validatedJSON = []struct {
	name  string
	build func() http.Handler
}{
	{"plinth-api", validated.PlinthAPI},
	{"plinth-native", validated.PlinthNative},
	{"plinth-binder", validated.PlinthBinder},
	{"huma", validated.Huma},
	{"gin", validated.Gin},
	{"echo", validated.Echo},
}

// BenchmarkValidatedJSON: go test -run '^$' -bench ValidatedJSON -benchtime 200ms -count 5
func BenchmarkValidatedJSON(b *testing.B) {
	for _, fw := range validatedJSON {
		b.Run(fw.name, func(b *testing.B) {
			h := fw.build()
			body := strings.NewReader(validated.RequestBody)
			req, _ := http.NewRequest("POST", "/users", body)
			req.Header.Set("Content-Type", "application/json")
			w := suite.NewResponseWriter(true)
			h.ServeHTTP(w, req)
			if w.Status() != http.StatusCreated || !strings.Contains(string(w.Body), `"code":"ABC"`) {
				b.Fatalf("%s: %d %s", fw.name, w.Status(), w.Body)
			}
			w = suite.NewResponseWriter(false)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				body.Reset(validated.RequestBody)
				w.Reset()
				h.ServeHTTP(w, req)
			}
		})
	}
}

// TestValidatedJSONRejects checks that every framework refuses a bad body,
// so that no benchmark measures a validator that does nothing.
func TestValidatedJSONRejects(t *testing.T) {
	bad := []string{
		`{"name":"","email":"ada@example.com","age":36,"role":"admin","code":"ABC"}`,
		`{"name":"Ada","email":"nope","age":36,"role":"admin","code":"ABC"}`,
		`{"name":"Ada","email":"ada@example.com","age":200,"role":"admin","code":"ABC"}`,
		`{"name":"Ada","email":"ada@example.com","age":36,"role":"root","code":"ABC"}`,
		`{"name":"Ada","email":"ada@example.com","age":36,"role":"admin","code":"abc"}`,
	}
	for _, fw := range validatedJSON {
		h := fw.build()
		for _, body := range bad {
			req, _ := http.NewRequest("POST", "/users", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			w := suite.NewResponseWriter(true)
			h.ServeHTTP(w, req)
			if s := w.Status(); s != 400 && s != 422 {
				t.Errorf("%s accepted %s: %d", fw.name, body, s)
			}
		}
	}
}

// BenchmarkValidator compares the validators alone on a valid 5-field
// struct: go test -run '^$' -bench Validator -benchtime 200ms -count 5
func BenchmarkValidator(b *testing.B) {
	b.Run("plinth-api", func(b *testing.B) {
		c := api.NewChecker[validated.User](api.Config{})
		u := validated.User{Name: "Ada Lovelace", Email: "ada@example.com", Age: 36, Role: "admin", Code: "ABC"}
		if errs := c.Check(nil, &u); errs != nil {
			b.Fatal(errs)
		}
		b.ReportAllocs()
		for b.Loop() {
			if c.Check(nil, &u) != nil {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("go-playground", func(b *testing.B) {
		v := validator.New(validator.WithRequiredStructEnabled())
		u := validated.PGUser{Name: "Ada Lovelace", Email: "ada@example.com", Age: 36, Role: "admin", Code: "ABC"}
		if err := v.Struct(&u); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if v.Struct(&u) != nil {
				b.Fatal("invalid")
			}
		}
	})
}
