package main

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// Task is the typed resource of the quickstart: its fields carry the
// validation rules that the api package compiles once at startup and
// publishes in /openapi.json.
type Task struct {
	ID       int        `json:"id" doc:"Assigned by the server." example:"1"`
	Title    string     `json:"title" validate:"required,minLength=1,maxLength=200" doc:"What to do." example:"Write the report"`
	Priority string     `json:"priority" validate:"enum=low|normal|high" doc:"low, normal or high; absent means normal." example:"high"`
	Assignee string     `json:"assignee,omitempty" validate:"format=email" example:"ada@example.com"`
	Due      *time.Time `json:"due,omitempty" doc:"RFC 3339 date-time."`
	Tags     []string   `json:"tags,omitempty" validate:"maxItems=5,minLength=1,maxLength=20"`
	Link     string     `json:"link,omitempty" validate:"format=url" doc:"An http or https link." example:"https://example.com/report"`
	Done     bool       `json:"done"`
}

// TaskInput is what clients send to create or replace a task.
type TaskInput struct {
	Title    string     `json:"title" validate:"required,minLength=1,maxLength=200" example:"Write the report"`
	Priority string     `json:"priority,omitempty" validate:"enum=low|normal|high" example:"high"`
	Assignee string     `json:"assignee,omitempty" validate:"format=email" example:"ada@example.com"`
	Due      *time.Time `json:"due,omitempty"`
	Tags     []string   `json:"tags,omitempty" validate:"maxItems=5,minLength=1,maxLength=20"`
	Link     string     `json:"link,omitempty" validate:"format=url" example:"https://example.com/report"`
	Done     bool       `json:"done,omitempty"`
}

type listTasksIn struct {
	Done  *bool `query:"done" doc:"Only tasks with this done state."`
	Limit int   `query:"limit" default:"20" validate:"min=1,max=100" doc:"Page size."`
}

type listTasksOut struct {
	Body []Task
}

type taskIDIn struct {
	ID int `path:"id" validate:"min=1" doc:"Task ID." example:"1"`
}

type createTaskIn struct {
	Body TaskInput
}

type replaceTaskIn struct {
	ID   int `path:"id" validate:"min=1"`
	Body TaskInput
}

type taskOut struct {
	Location string `header:"Location" doc:"The task's URL (on create)."`
	Body     *Task
}

// tasks is the in-memory task store.
type tasks struct {
	mu    sync.RWMutex
	next  int
	items map[int]Task
}

func (s *tasks) put(id int, in *TaskInput) Task {
	t := Task{ID: id, Title: in.Title, Priority: in.Priority, Assignee: in.Assignee, Due: in.Due, Tags: in.Tags, Link: in.Link, Done: in.Done}
	if t.Priority == "" {
		t.Priority = "normal"
	}
	s.items[id] = t
	return t
}

// registerTasks adds the typed CRUD resource /api/tasks to g.
func registerTasks(g *api.Group) {
	s := &tasks{items: map[int]Task{}}
	notFound := func(id int) error { return plinth.Errorf(http.StatusNotFound, "task %d does not exist", id) }
	tags := []string{"tasks"}

	api.Register(g, api.Operation{Method: "GET", Path: "/tasks", Summary: "List tasks", Tags: tags},
		func(ctx context.Context, in *listTasksIn) (*listTasksOut, error) {
			s.mu.RLock()
			defer s.mu.RUnlock()
			out := &listTasksOut{Body: []Task{}}
			for _, t := range s.items {
				if in.Done == nil || *in.Done == t.Done {
					out.Body = append(out.Body, t)
				}
			}
			slices.SortFunc(out.Body, func(a, b Task) int { return a.ID - b.ID })
			if len(out.Body) > in.Limit {
				out.Body = out.Body[:in.Limit]
			}
			return out, nil
		})
	api.Register(g, api.Operation{Method: "POST", Path: "/tasks", Summary: "Create a task", Tags: tags},
		func(ctx context.Context, in *createTaskIn) (*taskOut, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.next++
			t := s.put(s.next, &in.Body)
			return &taskOut{Location: "/api/tasks/" + strconv.Itoa(t.ID), Body: &t}, nil
		})
	api.Register(g, api.Operation{Method: "GET", Path: "/tasks/{id}", Summary: "Get a task", Tags: tags, Errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *taskIDIn) (*Task, error) {
			s.mu.RLock()
			defer s.mu.RUnlock()
			t, ok := s.items[in.ID]
			if !ok {
				return nil, notFound(in.ID)
			}
			return &t, nil
		})
	api.Register(g, api.Operation{Method: "PUT", Path: "/tasks/{id}", Summary: "Replace a task", Tags: tags, Errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *replaceTaskIn) (*Task, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if _, ok := s.items[in.ID]; !ok {
				return nil, notFound(in.ID)
			}
			t := s.put(in.ID, &in.Body)
			return &t, nil
		})
	api.Register(g, api.Operation{Method: "DELETE", Path: "/tasks/{id}", Summary: "Delete a task", Tags: tags, Errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *taskIDIn) (*struct{}, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if _, ok := s.items[in.ID]; !ok {
				return nil, notFound(in.ID)
			}
			delete(s.items, in.ID)
			return nil, nil
		})
}
