package users

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strconv"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/module"
)

// Controller serves /users.
type Controller struct{ repo *Repo }

// NewController returns the controller on repo.
func NewController(repo *Repo) (*Controller, error) { return &Controller{repo: repo}, nil }

type userID struct {
	ID int64 `path:"id" validate:"min=1"`
}

type userList struct {
	Body []User
}

type newUser struct {
	Body struct {
		Name string `json:"name" validate:"required,minLength=1,maxLength=50" example:"grace"`
	}
}

type created struct {
	Location string `header:"Location"`
	Body     *User
}

// Routes registers the typed operations of /users.
func (uc *Controller) Routes(r *module.Routes) {
	g := r.API()
	api.Register(g, api.Operation{Method: http.MethodGet, Path: "", Summary: "List the users"},
		func(ctx context.Context, _ *struct{}) (*userList, error) {
			us, err := uc.repo.List(ctx)
			return &userList{Body: us}, err
		})
	api.Register(g, api.Operation{Method: http.MethodGet, Path: "/{id}", Summary: "Get a user", Errors: []int{404}},
		func(ctx context.Context, in *userID) (*User, error) {
			u, err := uc.repo.Get(ctx, in.ID)
			if errors.Is(err, sql.ErrNoRows) {
				return nil, plinth.Errorf(http.StatusNotFound, "user %d does not exist", in.ID)
			}
			return &u, err
		})
	api.Register(g, api.Operation{Method: http.MethodPost, Path: "", Summary: "Add a user", Errors: []int{409}},
		func(ctx context.Context, in *newUser) (*created, error) {
			u, err := uc.repo.Create(ctx, in.Body.Name)
			if err != nil {
				return nil, err // a taken name: db.Attach answers 409
			}
			return &created{Location: "/users/" + strconv.FormatInt(u.ID, 10), Body: &u}, nil
		})
}
