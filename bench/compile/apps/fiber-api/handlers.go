package main

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"
	"github.com/gofiber/fiber/v2"
)

// taskInput is what clients send to create or replace a task.
type taskInput struct {
	Title string `json:"title" validate:"required,min=1,max=200"`
	Done  bool   `json:"done"`
}

type listQuery struct {
	Limit int `query:"limit" validate:"min=1,max=500"`
}

type server struct {
	store    *store
	validate *validator.Validate
}

func newApp(st *store) *fiber.App {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			return strings.ToLower(f.Name)
		}
		return name
	})
	s := &server{store: st, validate: v}
	app := fiber.New(fiber.Config{ErrorHandler: errorHandler})
	tasks := app.Group("/tasks")
	tasks.Get("", s.listTasks)
	tasks.Post("", s.createTask)
	tasks.Get("/:id", s.getTask)
	tasks.Put("/:id", s.replaceTask)
	tasks.Delete("/:id", s.deleteTask)
	return app
}

func (s *server) listTasks(c *fiber.Ctx) error {
	q := listQuery{Limit: 50}
	if err := c.QueryParser(&q); err != nil {
		return fiber.NewError(fiber.StatusUnprocessableEntity, err.Error())
	}
	if err := s.validate.Struct(q); err != nil {
		return invalid(err)
	}
	tasks, err := s.store.list(c.UserContext(), q.Limit)
	if err != nil {
		return err
	}
	return c.JSON(tasks)
}

func (s *server) createTask(c *fiber.Ctx) error {
	var in taskInput
	if err := s.bind(c, &in); err != nil {
		return err
	}
	t, err := s.store.create(c.UserContext(), toTask(0, in))
	if err != nil {
		return err
	}
	c.Location("/tasks/" + strconv.FormatInt(t.ID, 10))
	return c.Status(fiber.StatusCreated).JSON(t)
}

func (s *server) getTask(c *fiber.Ctx) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	t, err := s.store.get(c.UserContext(), id)
	if errors.Is(err, errNotFound) {
		return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": notFoundMessage(id)})
	}
	if err != nil {
		return err
	}
	return c.JSON(t)
}

func (s *server) replaceTask(c *fiber.Ctx) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	var in taskInput
	if err := s.bind(c, &in); err != nil {
		return err
	}
	t, err := s.store.update(c.UserContext(), toTask(id, in))
	if errors.Is(err, errNotFound) {
		return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": notFoundMessage(id)})
	}
	if err != nil {
		return err
	}
	return c.JSON(t)
}

func (s *server) deleteTask(c *fiber.Ctx) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	err = s.store.delete(c.UserContext(), id)
	if errors.Is(err, errNotFound) {
		return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": notFoundMessage(id)})
	}
	if err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func toTask(id int64, in taskInput) Task {
	return Task{ID: id, Title: in.Title, Done: in.Done}
}

func taskID(c *fiber.Ctx) (int64, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, fiber.NewError(fiber.StatusUnprocessableEntity, "id: want a positive integer")
	}
	return id, nil
}

// bind parses the JSON body into v and validates it.
func (s *server) bind(c *fiber.Ctx, v any) error {
	if err := c.BodyParser(v); err != nil {
		return fiber.NewError(fiber.StatusBadRequest, "invalid JSON body: "+err.Error())
	}
	if err := s.validate.Struct(v); err != nil {
		return invalid(err)
	}
	return nil
}

// validationError lists the fields that failed validation.
type validationError struct{ fields []fiber.Map }

func (e *validationError) Error() string { return "validation failed" }

// invalid turns a validator error into a 422 listing the failing fields.
func invalid(err error) error {
	var ve validator.ValidationErrors
	if !errors.As(err, &ve) {
		return fiber.NewError(fiber.StatusUnprocessableEntity, err.Error())
	}
	fields := make([]fiber.Map, len(ve))
	for i, fe := range ve {
		fields[i] = fiber.Map{"field": fe.Field(), "rule": fe.Tag()}
	}
	return &validationError{fields}
}

// errorHandler answers errors as JSON: 422 with the fields for a validation
// error, the status of a *fiber.Error, else 500.
func errorHandler(c *fiber.Ctx, err error) error {
	var ve *validationError
	if errors.As(err, &ve) {
		return c.Status(fiber.StatusUnprocessableEntity).JSON(fiber.Map{"error": ve.Error(), "fields": ve.fields})
	}
	code := fiber.StatusInternalServerError
	var fe *fiber.Error
	if errors.As(err, &fe) {
		code = fe.Code
	}
	return c.Status(code).JSON(fiber.Map{"error": err.Error()})
}

// notFoundMessage is the message of the 404 of a task that does not exist.
func notFoundMessage(id int64) string {
	return "task " + strconv.FormatInt(id, 10) + " does not exist"
}
