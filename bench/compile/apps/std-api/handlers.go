package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"
)

// taskInput is what clients send to create or replace a task.
type taskInput struct {
	Title string `json:"title" validate:"required,min=1,max=200"`
	Done  bool   `json:"done"`
}

type listQuery struct {
	Limit int `validate:"min=1,max=500"`
}

type server struct {
	store    *store
	validate *validator.Validate
}

func newHandler(st *store) http.Handler {
	s := &server{store: st, validate: newValidator()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /tasks", s.listTasks)
	mux.HandleFunc("POST /tasks", s.createTask)
	mux.HandleFunc("GET /tasks/{id}", s.getTask)
	mux.HandleFunc("PUT /tasks/{id}", s.replaceTask)
	mux.HandleFunc("DELETE /tasks/{id}", s.deleteTask)
	return mux
}

func (s *server) listTasks(w http.ResponseWriter, r *http.Request) {
	q := listQuery{Limit: 50}
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, "limit: not a number", nil)
			return
		}
		q.Limit = n
	}
	if err := s.validate.Struct(q); err != nil {
		writeInvalid(w, err)
		return
	}
	tasks, err := s.store.list(r.Context(), q.Limit)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	writeJSON(w, http.StatusOK, tasks)
}

func (s *server) createTask(w http.ResponseWriter, r *http.Request) {
	var in taskInput
	if !s.bind(w, r, &in) {
		return
	}
	t, err := s.store.create(r.Context(), toTask(0, in))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	w.Header().Set("Location", "/tasks/"+strconv.FormatInt(t.ID, 10))
	writeJSON(w, http.StatusCreated, t)
}

func (s *server) getTask(w http.ResponseWriter, r *http.Request) {
	id, ok := taskID(w, r)
	if !ok {
		return
	}
	t, err := s.store.get(r.Context(), id)
	if errors.Is(err, errNotFound) {
		writeError(w, http.StatusNotFound, notFoundMessage(id), nil)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

func (s *server) replaceTask(w http.ResponseWriter, r *http.Request) {
	id, ok := taskID(w, r)
	if !ok {
		return
	}
	var in taskInput
	if !s.bind(w, r, &in) {
		return
	}
	t, err := s.store.update(r.Context(), toTask(id, in))
	if errors.Is(err, errNotFound) {
		writeError(w, http.StatusNotFound, notFoundMessage(id), nil)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

func (s *server) deleteTask(w http.ResponseWriter, r *http.Request) {
	id, ok := taskID(w, r)
	if !ok {
		return
	}
	err := s.store.delete(r.Context(), id)
	if errors.Is(err, errNotFound) {
		writeError(w, http.StatusNotFound, notFoundMessage(id), nil)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func toTask(id int64, in taskInput) Task {
	return Task{ID: id, Title: in.Title, Done: in.Done}
}

func taskID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		writeError(w, http.StatusUnprocessableEntity, "id: want a positive integer", nil)
		return 0, false
	}
	return id, true
}

// bind decodes the JSON body into v and validates it, answering 400 or 422
// when it cannot.
func (s *server) bind(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error(), nil)
		return false
	}
	if err := s.validate.Struct(v); err != nil {
		writeInvalid(w, err)
		return false
	}
	return true
}

// newValidator reports fields by their JSON names.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			return strings.ToLower(f.Name)
		}
		return name
	})
	return v
}

type fieldError struct {
	Field string `json:"field"`
	Rule  string `json:"rule"`
}

func writeInvalid(w http.ResponseWriter, err error) {
	var ve validator.ValidationErrors
	if !errors.As(err, &ve) {
		writeError(w, http.StatusUnprocessableEntity, err.Error(), nil)
		return
	}
	fields := make([]fieldError, len(ve))
	for i, fe := range ve {
		fields[i] = fieldError{Field: fe.Field(), Rule: fe.Tag()}
	}
	writeError(w, http.StatusUnprocessableEntity, "validation failed", fields)
}

func writeError(w http.ResponseWriter, status int, msg string, fields []fieldError) {
	writeJSON(w, status, struct {
		Error  string       `json:"error"`
		Fields []fieldError `json:"fields,omitempty"`
	}{msg, fields})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// notFoundMessage is the message of the 404 of a task that does not exist.
func notFoundMessage(id int64) string {
	return "task " + strconv.FormatInt(id, 10) + " does not exist"
}
