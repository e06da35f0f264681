package main

import (
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/gin-gonic/gin/binding"
	"github.com/go-playground/validator/v10"
)

// taskInput is what clients send to create or replace a task.
type taskInput struct {
	Title string `json:"title" binding:"required,min=1,max=200"`
	Done  bool   `json:"done"`
}

type listQuery struct {
	Limit int `form:"limit,default=50" binding:"min=1,max=500"`
}

type taskURI struct {
	ID int64 `uri:"id" binding:"min=1"`
}

type server struct{ store *store }

func newEngine(st *store) *gin.Engine {
	if v, ok := binding.Validator.Engine().(*validator.Validate); ok {
		v.RegisterTagNameFunc(jsonName)
	}
	s := &server{store: st}
	r := gin.Default()
	tasks := r.Group("/tasks")
	tasks.GET("", s.listTasks)
	tasks.POST("", s.createTask)
	tasks.GET("/:id", s.getTask)
	tasks.PUT("/:id", s.replaceTask)
	tasks.DELETE("/:id", s.deleteTask)
	return r
}

// newHandler is the engine as an http.Handler, for the tests.
func newHandler(st *store) http.Handler { return newEngine(st) }

func (s *server) listTasks(c *gin.Context) {
	var q listQuery
	if err := c.ShouldBindQuery(&q); err != nil {
		invalid(c, err)
		return
	}
	tasks, err := s.store.list(c.Request.Context(), q.Limit)
	if err != nil {
		c.JSON(http.StatusInternalServerError, gin.H{"error": err.Error()})
		return
	}
	c.JSON(http.StatusOK, tasks)
}

func (s *server) createTask(c *gin.Context) {
	var in taskInput
	if err := c.ShouldBindJSON(&in); err != nil {
		invalid(c, err)
		return
	}
	t, err := s.store.create(c.Request.Context(), toTask(0, in))
	if err != nil {
		c.JSON(http.StatusInternalServerError, gin.H{"error": err.Error()})
		return
	}
	c.Header("Location", "/tasks/"+strconv.FormatInt(t.ID, 10))
	c.JSON(http.StatusCreated, t)
}

func (s *server) getTask(c *gin.Context) {
	var u taskURI
	if err := c.ShouldBindUri(&u); err != nil {
		invalid(c, err)
		return
	}
	t, err := s.store.get(c.Request.Context(), u.ID)
	if errors.Is(err, errNotFound) {
		c.JSON(http.StatusNotFound, gin.H{"error": notFoundMessage(u.ID)})
		return
	}
	if err != nil {
		c.JSON(http.StatusInternalServerError, gin.H{"error": err.Error()})
		return
	}
	c.JSON(http.StatusOK, t)
}

func (s *server) replaceTask(c *gin.Context) {
	var u taskURI
	if err := c.ShouldBindUri(&u); err != nil {
		invalid(c, err)
		return
	}
	var in taskInput
	if err := c.ShouldBindJSON(&in); err != nil {
		invalid(c, err)
		return
	}
	t, err := s.store.update(c.Request.Context(), toTask(u.ID, in))
	if errors.Is(err, errNotFound) {
		c.JSON(http.StatusNotFound, gin.H{"error": notFoundMessage(u.ID)})
		return
	}
	if err != nil {
		c.JSON(http.StatusInternalServerError, gin.H{"error": err.Error()})
		return
	}
	c.JSON(http.StatusOK, t)
}

func (s *server) deleteTask(c *gin.Context) {
	var u taskURI
	if err := c.ShouldBindUri(&u); err != nil {
		invalid(c, err)
		return
	}
	err := s.store.delete(c.Request.Context(), u.ID)
	if errors.Is(err, errNotFound) {
		c.JSON(http.StatusNotFound, gin.H{"error": notFoundMessage(u.ID)})
		return
	}
	if err != nil {
		c.JSON(http.StatusInternalServerError, gin.H{"error": err.Error()})
		return
	}
	c.Status(http.StatusNoContent)
}

func toTask(id int64, in taskInput) Task {
	return Task{ID: id, Title: in.Title, Done: in.Done}
}

// invalid answers a binding error: 422 listing the fields for a validation
// error, 400 for a body that is not JSON.
func invalid(c *gin.Context, err error) {
	var ve validator.ValidationErrors
	if !errors.As(err, &ve) {
		c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
		return
	}
	fields := make([]gin.H, len(ve))
	for i, fe := range ve {
		fields[i] = gin.H{"field": fe.Field(), "rule": fe.Tag()}
	}
	c.JSON(http.StatusUnprocessableEntity, gin.H{"error": "validation failed", "fields": fields})
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

// notFoundMessage is the message of the 404 of a task that does not exist.
func notFoundMessage(id int64) string {
	return "task " + strconv.FormatInt(id, 10) + " does not exist"
}
