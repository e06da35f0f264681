package orders

import (
	"context"

	"github.com/plinth-go/plinth/examples/modular/payments"
	"github.com/plinth-go/plinth/examples/modular/users"
)

// Service places orders: it needs the users module's repository and the
// payments module's service, which those modules export.
type Service struct {
	users *users.Repo
	pay   *payments.Service
	repo  *Repo
}

// NewService returns the service on its three dependencies.
func NewService(u *users.Repo, p *payments.Service, repo *Repo) (*Service, error) {
	return &Service{users: u, pay: p, repo: repo}, nil
}

// Place records an order of item for the user called userName, charges
// it, and returns it paid or declined.
func (s *Service) Place(ctx context.Context, userName, item string, amountCents int64) (Order, error) {
	u, err := s.users.ByName(ctx, userName)
	if err != nil {
		return Order{}, err
	}
	o, err := s.repo.Create(ctx, Order{UserID: u.ID, Item: item, AmountCents: amountCents})
	if err != nil {
		return Order{}, err
	}
	p, err := s.pay.Pay(ctx, o.ID, amountCents)
	if err != nil {
		return Order{}, err // the order stays pending
	}
	o.Status, o.PaymentID = Declined, p.ID
	if p.Approved {
		o.Status = Paid
	}
	return o, s.repo.SetStatus(ctx, o.ID, o.Status)
}

// Get returns the order with id.
func (s *Service) Get(ctx context.Context, id int64) (Order, error) { return s.repo.Get(ctx, id) }
