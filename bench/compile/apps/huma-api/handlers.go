package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// TaskInput is what clients send to create or replace a task.
type TaskInput struct {
	Title string `json:"title" minLength:"1" maxLength:"200" doc:"What to do." example:"Write the report"`
	Done  bool   `json:"done,omitempty"`
}

type listTasksIn struct {
	Limit int `query:"limit" default:"50" minimum:"1" maximum:"500" doc:"Page size."`
}

type listTasksOut struct {
	Body []Task
}

type taskIDIn struct {
	ID int64 `path:"id" minimum:"1" doc:"Task ID."`
}

type createTaskIn struct {
	Body TaskInput
}

type replaceTaskIn struct {
	ID   int64 `path:"id" minimum:"1"`
	Body TaskInput
}

type taskOut struct {
	Location string `header:"Location" doc:"The task's URL (on create)."`
	Body     Task
}

func newHandler(st *store) http.Handler {
	mux := http.NewServeMux()
	api := humago.New(mux, huma.DefaultConfig("Tasks", "1.0.0"))
	registerTasks(api, st)
	return mux
}

// registerTasks adds the typed CRUD resource /tasks to api.
func registerTasks(api huma.API, st *store) {
	tags := []string{"tasks"}
	huma.Register(api, huma.Operation{OperationID: "list-tasks", Method: http.MethodGet, Path: "/tasks", Summary: "List tasks", Tags: tags},
		func(ctx context.Context, in *listTasksIn) (*listTasksOut, error) {
			tasks, err := st.list(ctx, in.Limit)
			if err != nil {
				return nil, err
			}
			return &listTasksOut{Body: tasks}, nil
		})
	huma.Register(api, huma.Operation{OperationID: "create-task", Method: http.MethodPost, Path: "/tasks", Summary: "Create a task", Tags: tags, DefaultStatus: http.StatusCreated},
		func(ctx context.Context, in *createTaskIn) (*taskOut, error) {
			t, err := st.create(ctx, toTask(0, in.Body))
			if err != nil {
				return nil, err
			}
			return &taskOut{Location: "/tasks/" + strconv.FormatInt(t.ID, 10), Body: t}, nil
		})
	huma.Register(api, huma.Operation{OperationID: "get-task", Method: http.MethodGet, Path: "/tasks/{id}", Summary: "Get a task", Tags: tags},
		func(ctx context.Context, in *taskIDIn) (*taskOut, error) {
			t, err := st.get(ctx, in.ID)
			if errors.Is(err, errNotFound) {
				return nil, huma.Error404NotFound(notFoundMessage(in.ID))
			}
			if err != nil {
				return nil, err
			}
			return &taskOut{Body: t}, nil
		})
	huma.Register(api, huma.Operation{OperationID: "replace-task", Method: http.MethodPut, Path: "/tasks/{id}", Summary: "Replace a task", Tags: tags},
		func(ctx context.Context, in *replaceTaskIn) (*taskOut, error) {
			t, err := st.update(ctx, toTask(in.ID, in.Body))
			if errors.Is(err, errNotFound) {
				return nil, huma.Error404NotFound(notFoundMessage(in.ID))
			}
			if err != nil {
				return nil, err
			}
			return &taskOut{Body: t}, nil
		})
	huma.Register(api, huma.Operation{OperationID: "delete-task", Method: http.MethodDelete, Path: "/tasks/{id}", Summary: "Delete a task", Tags: tags, DefaultStatus: http.StatusNoContent},
		func(ctx context.Context, in *taskIDIn) (*struct{}, error) {
			err := st.delete(ctx, in.ID)
			if errors.Is(err, errNotFound) {
				return nil, huma.Error404NotFound(notFoundMessage(in.ID))
			}
			return nil, err
		})
}

func toTask(id int64, in TaskInput) Task {
	return Task{ID: id, Title: in.Title, Done: in.Done}
}

// notFoundMessage is the message of the 404 of a task that does not exist.
func notFoundMessage(id int64) string {
	return "task " + strconv.FormatInt(id, 10) + " does not exist"
}
