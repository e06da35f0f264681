package payments

import (
	"context"
	"fmt"
	"net/http"

	"github.com/plinth-go/plinth"
)

// Service charges orders: it asks the Client and records the answer.
type Service struct {
	client Client
	repo   *Repo
}

// NewService returns the service on client and repo.
func NewService(client Client, repo *Repo) (*Service, error) {
	return &Service{client: client, repo: repo}, nil
}

// Pay charges amountCents for the order and records the payment, approved
// or declined. A processor that fails to answer is a 502 problem.
func (s *Service) Pay(ctx context.Context, orderID, amountCents int64) (Payment, error) {
	rc, err := s.client.Charge(ctx, Charge{OrderID: orderID, AmountCents: amountCents})
	if err != nil {
		p := plinth.Error(http.StatusBadGateway, "the payment processor did not answer")
		return Payment{}, fmt.Errorf("%w: %w", p, err)
	}
	return s.repo.Record(ctx, Payment{OrderID: orderID, AmountCents: amountCents, Reference: rc.Reference, Approved: rc.Approved})
}
