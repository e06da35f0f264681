// Package orders is the shop's orders module: the orders table, the
// service that places an order and has it paid through the payments
// module, and the typed /orders operations, whose POST requires a known
// user (the users module's guard).
package orders

import (
	"context"
	"database/sql"
)

// Status is where an order stands.
type Status string

// The statuses of an order.
const (
	Pending  Status = "pending"  // placed, not charged yet
	Paid     Status = "paid"     // the charge was approved
	Declined Status = "declined" // the charge was declined
)

// Order is an item a user bought.
type Order struct {
	ID          int64  `json:"id"`
	UserID      int64  `json:"user_id"`
	Item        string `json:"item"`
	AmountCents int64  `json:"amount_cents"`
	Status      Status `json:"status"`
	PaymentID   int64  `json:"payment_id,omitempty"`
}

// Repo keeps orders in the database.
type Repo struct{ db *sql.DB }

// NewRepo returns the repository on db.
func NewRepo(db *sql.DB) (*Repo, error) { return &Repo{db: db}, nil }

// Create stores o as pending and returns it with its id.
func (r *Repo) Create(ctx context.Context, o Order) (Order, error) {
	o.Status = Pending
	err := r.db.QueryRowContext(ctx,
		"INSERT INTO orders (user_id, item, amount_cents, status) VALUES ($1, $2, $3, $4) RETURNING id",
		o.UserID, o.Item, o.AmountCents, o.Status).Scan(&o.ID)
	return o, err
}

// SetStatus records the order's new status.
func (r *Repo) SetStatus(ctx context.Context, id int64, s Status) error {
	_, err := r.db.ExecContext(ctx, "UPDATE orders SET status = $1 WHERE id = $2", s, id)
	return err
}

// Get returns the order with id; sql.ErrNoRows when there is none.
func (r *Repo) Get(ctx context.Context, id int64) (Order, error) {
	o := Order{ID: id}
	err := r.db.QueryRowContext(ctx,
		"SELECT user_id, item, amount_cents, status FROM orders WHERE id = $1", id).
		Scan(&o.UserID, &o.Item, &o.AmountCents, &o.Status)
	return o, err
}
