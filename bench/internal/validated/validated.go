// Package validated is the validated-json scenario (run-validated-json.sh,
// bench/validated_json_test.go): POST /users with a 5-field JSON body that is
// validated (required, lengths, email format, range, enum, pattern), then
// answered 201 with the user as JSON. Each framework gets the same rules in
// its own tag syntax.
package validated

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/gin-gonic/gin"
	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/bench/internal/suite"
)

// RequestBody is the request body of the scenario.
const RequestBody = `{"name":"Ada Lovelace","email":"ada@example.com","age":36,"role":"admin","code":"ABC"}`

// User carries the api package's rules.
type User struct {
	Name  string `json:"name" validate:"required,minLength=1,maxLength=50"`
	Email string `json:"email" validate:"required,format=email"`
	Age   int    `json:"age" validate:"min=0,max=150"`
	Role  string `json:"role" validate:"required,enum=admin|user|guest"`
	Code  string `json:"code" validate:"required,pattern=^[A-Z]{3}$"`
}

// PGUser carries go-playground/validator's rules (echo, and gin's binding
// tags below), the same constraints: ^[A-Z]{3}$ as len=3,alpha,uppercase.
type PGUser struct {
	Name  string `json:"name" validate:"required,min=1,max=50" binding:"required,min=1,max=50"`
	Email string `json:"email" validate:"required,email" binding:"required,email"`
	Age   int    `json:"age" validate:"gte=0,lte=150" binding:"gte=0,lte=150"`
	Role  string `json:"role" validate:"required,oneof=admin user guest" binding:"required,oneof=admin user guest"`
	Code  string `json:"code" validate:"required,len=3,alpha,uppercase" binding:"required,len=3,alpha,uppercase"`
}

// HumaUser carries huma's schema tags.
type HumaUser struct {
	Name  string `json:"name" minLength:"1" maxLength:"50"`
	Email string `json:"email" format:"email"`
	Age   int    `json:"age" minimum:"0" maximum:"150"`
	Role  string `json:"role" enum:"admin,user,guest"`
	Code  string `json:"code" pattern:"^[A-Z]{3}$"`
}

type userIn struct{ Body User }
type userOut struct{ Body *User }

// PlinthAPI is the typed operation.
func PlinthAPI() http.Handler { return PlinthAPIOn(plinth.Bare()) }

// PlinthAPIOn is the typed operation on app (cmd/instr serves it on
// plinth.New() as well: the typed operation inside the default layer).
func PlinthAPIOn(app *plinth.App) http.Handler {
	a := api.New(app, api.Config{OpenAPIPath: "-"})
	api.Register(a, api.Operation{Method: "POST", Path: "/users"}, func(ctx context.Context, in *userIn) (*userOut, error) {
		return &userOut{Body: &in.Body}, nil
	})
	app.Build()
	return app
}

var codePattern = regexp.MustCompile(`^[A-Z]{3}$`)

// PlinthNative decodes and checks by hand on the same route: what
// typing costs is the difference to PlinthAPI.
func PlinthNative() http.Handler {
	app := plinth.Bare()
	app.Post("/users", func(c *plinth.Ctx) error {
		var u User
		dec := json.NewDecoder(c.Request().Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&u); err != nil {
			return plinth.BadRequest("malformed JSON")
		}
		var errs []string
		if n := utf8.RuneCountInString(u.Name); n < 1 || n > 50 {
			errs = append(errs, "name")
		}
		if at := strings.LastIndexByte(u.Email, '@'); at <= 0 || at == len(u.Email)-1 {
			errs = append(errs, "email")
		}
		if u.Age < 0 || u.Age > 150 {
			errs = append(errs, "age")
		}
		if u.Role != "admin" && u.Role != "user" && u.Role != "guest" {
			errs = append(errs, "role")
		}
		if !codePattern.MatchString(u.Code) {
			errs = append(errs, "code")
		}
		if errs != nil {
			return plinth.Error(http.StatusUnprocessableEntity, "validation failed").With("errors", errs)
		}
		return c.JSON(http.StatusCreated, &u)
	})
	app.Build()
	return app
}

// PlinthBinder is the native handler with the api package's
// Binder: the typed operation's binder and validator, without the typed
// signature.
func PlinthBinder() http.Handler {
	app := plinth.Bare()
	b := api.NewBinder[User](api.Config{})
	app.Post("/users", func(c *plinth.Ctx) error {
		var u User
		if err := b.Bind(c, &u); err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, &u)
	})
	app.Build()
	return app
}

// Huma is huma v2 on net/http (humago) with DefaultConfig less its
// schema-link hook (which adds a $schema member and a Link header to every
// response: work the others do not do).
func Huma() http.Handler {
	mux := http.NewServeMux()
	cfg := huma.DefaultConfig("bench", "1.0.0")
	cfg.CreateHooks = nil
	h := humago.New(mux, cfg)
	huma.Register(h, huma.Operation{Method: http.MethodPost, Path: "/users", DefaultStatus: http.StatusCreated},
		func(ctx context.Context, in *struct{ Body HumaUser }) (*struct{ Body *HumaUser }, error) {
			return &struct{ Body *HumaUser }{&in.Body}, nil
		})
	return mux
}

// Gin binds with ShouldBindJSON and binding tags (validator v10).
func Gin() http.Handler {
	engine := suite.GinEngine()
	engine.POST("/users", func(c *gin.Context) {
		var u PGUser
		if err := c.ShouldBindJSON(&u); err != nil {
			c.JSON(http.StatusUnprocessableEntity, gin.H{"error": err.Error()})
			return
		}
		c.JSON(http.StatusCreated, &u)
	})
	return engine
}

type echoValidator struct{ v *validator.Validate }

func (e echoValidator) Validate(i any) error { return e.v.Struct(i) }

// Echo binds with c.Bind and validates with go-playground/validator.
func Echo() http.Handler {
	e := echo.New()
	e.Validator = echoValidator{validator.New(validator.WithRequiredStructEnabled())}
	e.POST("/users", func(c echo.Context) error {
		var u PGUser
		if err := c.Bind(&u); err != nil {
			return err
		}
		if err := c.Validate(&u); err != nil {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": err.Error()})
		}
		return c.JSON(http.StatusCreated, &u)
	})
	return e
}
