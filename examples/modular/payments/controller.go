package payments

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/module"
)

// Controller serves /payments.
type Controller struct{ repo *Repo }

// NewController returns the controller on repo.
func NewController(repo *Repo) (*Controller, error) { return &Controller{repo: repo}, nil }

type paymentID struct {
	ID int64 `path:"id" validate:"min=1"`
}

type byOrder struct {
	OrderID int64 `query:"order_id" validate:"required,min=1" doc:"The order whose payments to list."`
}

type paymentList struct {
	Body []Payment
}

// Routes registers the typed operations of /payments.
func (pc *Controller) Routes(r *module.Routes) {
	g := r.API()
	api.Register(g, api.Operation{Method: http.MethodGet, Path: "", Summary: "List an order's payments"},
		func(ctx context.Context, in *byOrder) (*paymentList, error) {
			ps, err := pc.repo.ForOrder(ctx, in.OrderID)
			return &paymentList{Body: ps}, err
		})
	api.Register(g, api.Operation{Method: http.MethodGet, Path: "/{id}", Summary: "Get a payment", Errors: []int{404}},
		func(ctx context.Context, in *paymentID) (*Payment, error) {
			p, err := pc.repo.Get(ctx, in.ID)
			if errors.Is(err, sql.ErrNoRows) {
				return nil, plinth.Errorf(http.StatusNotFound, "payment %d does not exist", in.ID)
			}
			return &p, err
		})
}
