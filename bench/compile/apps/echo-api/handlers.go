package main

import (
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"
)

// taskInput is what clients send to create or replace a task.
type taskInput struct {
	Title string `json:"title" validate:"required,min=1,max=200"`
	Done  bool   `json:"done"`
}

type listQuery struct {
	Limit int `query:"limit" validate:"min=1,max=500"`
}

type taskPath struct {
	ID int64 `param:"id" validate:"min=1"`
}

// structValidator is go-playground/validator as echo's Validator, answering
// 422 with the failing fields.
type structValidator struct{ v *validator.Validate }

func (sv *structValidator) Validate(i any) error {
	err := sv.v.Struct(i)
	var ve validator.ValidationErrors
	if !errors.As(err, &ve) {
		return err
	}
	fields := make([]map[string]string, len(ve))
	for i, fe := range ve {
		fields[i] = map[string]string{"field": fe.Field(), "rule": fe.Tag()}
	}
	return echo.NewHTTPError(http.StatusUnprocessableEntity, map[string]any{"error": "validation failed", "fields": fields})
}

type server struct{ store *store }

func newEcho(st *store) *echo.Echo {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			return strings.ToLower(f.Name)
		}
		return name
	})
	s := &server{store: st}
	e := echo.New()
	e.Validator = &structValidator{v}
	g := e.Group("/tasks")
	g.GET("", s.listTasks)
	g.POST("", s.createTask)
	g.GET("/:id", s.getTask)
	g.PUT("/:id", s.replaceTask)
	g.DELETE("/:id", s.deleteTask)
	return e
}

// newHandler is the app as an http.Handler, for the tests.
func newHandler(st *store) http.Handler { return newEcho(st) }

// bind binds and validates v.
func bind(c echo.Context, v any) error {
	if err := c.Bind(v); err != nil {
		return err
	}
	return c.Validate(v)
}

func (s *server) listTasks(c echo.Context) error {
	q := listQuery{Limit: 50}
	if err := bind(c, &q); err != nil {
		return err
	}
	tasks, err := s.store.list(c.Request().Context(), q.Limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, tasks)
}

func (s *server) createTask(c echo.Context) error {
	var in taskInput
	if err := bind(c, &in); err != nil {
		return err
	}
	t, err := s.store.create(c.Request().Context(), toTask(0, in))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Location", "/tasks/"+strconv.FormatInt(t.ID, 10))
	return c.JSON(http.StatusCreated, t)
}

func (s *server) getTask(c echo.Context) error {
	var p taskPath
	if err := bind(c, &p); err != nil {
		return err
	}
	t, err := s.store.get(c.Request().Context(), p.ID)
	if errors.Is(err, errNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, notFoundMessage(p.ID))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (s *server) replaceTask(c echo.Context) error {
	var p taskPath
	if err := (&echo.DefaultBinder{}).BindPathParams(c, &p); err != nil {
		return err
	}
	if err := c.Validate(&p); err != nil {
		return err
	}
	var in taskInput
	if err := bind(c, &in); err != nil {
		return err
	}
	t, err := s.store.update(c.Request().Context(), toTask(p.ID, in))
	if errors.Is(err, errNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, notFoundMessage(p.ID))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (s *server) deleteTask(c echo.Context) error {
	var p taskPath
	if err := bind(c, &p); err != nil {
		return err
	}
	err := s.store.delete(c.Request().Context(), p.ID)
	if errors.Is(err, errNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, notFoundMessage(p.ID))
	}
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func toTask(id int64, in taskInput) Task {
	return Task{ID: id, Title: in.Title, Done: in.Done}
}

// notFoundMessage is the message of the 404 of a task that does not exist.
func notFoundMessage(id int64) string {
	return "task " + strconv.FormatInt(id, 10) + " does not exist"
}
