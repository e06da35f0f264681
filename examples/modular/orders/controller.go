package orders

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strconv"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/examples/modular/users"
	"github.com/plinth-go/plinth/module"
)

// Controller serves /orders.
type Controller struct {
	svc   *Service
	users *users.Repo
}

// NewController returns the controller on svc; u is for the guard.
func NewController(svc *Service, u *users.Repo) (*Controller, error) {
	return &Controller{svc: svc, users: u}, nil
}

type orderID struct {
	ID int64 `path:"id" validate:"min=1"`
}

type newOrder struct {
	User string `header:"X-User" doc:"The user placing the order (checked by the guard)."`
	Body struct {
		Item        string `json:"item" validate:"required,minLength=1,maxLength=100" example:"teapot"`
		AmountCents int64  `json:"amount_cents" validate:"min=1" example:"2500"`
	}
}

type placed struct {
	Location string `header:"Location"`
	Body     *Order
}

// Routes registers the typed operations of /orders; placing an order
// requires a known user (users.RequireUser).
func (oc *Controller) Routes(r *module.Routes) {
	api.Register(r.API(), api.Operation{Method: http.MethodGet, Path: "/{id}", Summary: "Get an order", Errors: []int{404}},
		func(ctx context.Context, in *orderID) (*Order, error) {
			o, err := oc.svc.Get(ctx, in.ID)
			if errors.Is(err, sql.ErrNoRows) {
				return nil, plinth.Errorf(http.StatusNotFound, "order %d does not exist", in.ID)
			}
			return &o, err
		})
	signedIn := r.API(module.Scope{Guards: []module.Guard{users.RequireUser(oc.users)}})
	api.Register(signedIn, api.Operation{Method: http.MethodPost, Path: "", Summary: "Place an order and pay for it",
		Description: "The X-User header must name a known user (401 without it, 403 for an unknown name).",
		Errors:      []int{401, 403, 502}},
		func(ctx context.Context, in *newOrder) (*placed, error) {
			o, err := oc.svc.Place(ctx, in.User, in.Body.Item, in.Body.AmountCents)
			if err != nil {
				return nil, err
			}
			return &placed{Location: "/orders/" + strconv.FormatInt(o.ID, 10), Body: &o}, nil
		})
}
