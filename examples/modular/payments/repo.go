package payments

import (
	"context"
	"database/sql"
)

// Payment is a charge the processor answered, approved or not.
type Payment struct {
	ID          int64  `json:"id"`
	OrderID     int64  `json:"order_id"`
	AmountCents int64  `json:"amount_cents"`
	Reference   string `json:"reference"`
	Approved    bool   `json:"approved"`
}

// Repo keeps payments in the database.
type Repo struct{ db *sql.DB }

// NewRepo returns the repository on db.
func NewRepo(db *sql.DB) (*Repo, error) { return &Repo{db: db}, nil }

// Record stores p and returns it with its id.
func (r *Repo) Record(ctx context.Context, p Payment) (Payment, error) {
	err := r.db.QueryRowContext(ctx,
		"INSERT INTO payments (order_id, amount_cents, reference, approved) VALUES ($1, $2, $3, $4) RETURNING id",
		p.OrderID, p.AmountCents, p.Reference, p.Approved).Scan(&p.ID)
	return p, err
}

// Get returns the payment with id; sql.ErrNoRows when there is none.
func (r *Repo) Get(ctx context.Context, id int64) (Payment, error) {
	p := Payment{ID: id}
	err := r.db.QueryRowContext(ctx,
		"SELECT order_id, amount_cents, reference, approved FROM payments WHERE id = $1", id).
		Scan(&p.OrderID, &p.AmountCents, &p.Reference, &p.Approved)
	return p, err
}

// ForOrder returns the payments of an order, oldest first.
func (r *Repo) ForOrder(ctx context.Context, orderID int64) ([]Payment, error) {
	rows, err := r.db.QueryContext(ctx,
		"SELECT id, order_id, amount_cents, reference, approved FROM payments WHERE order_id = $1 ORDER BY id", orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Payment{}
	for rows.Next() {
		var p Payment
		if err := rows.Scan(&p.ID, &p.OrderID, &p.AmountCents, &p.Reference, &p.Approved); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
