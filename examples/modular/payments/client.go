// Package payments is the shop's payments module: the client of the
// payment processor (with start-up and shutdown work), the payments table,
// the service that orders use to charge, and the typed /payments
// operations.
package payments

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
)

// Charge is what the processor is asked to take.
type Charge struct {
	OrderID     int64
	AmountCents int64
}

// Receipt is the processor's answer to a Charge.
type Receipt struct {
	Reference string
	Approved  bool
}

// Client is the payment processor as the shop sees it. Tests replace it in
// one line: module.Replace[payments.Client](fake).
type Client interface {
	Charge(ctx context.Context, ch Charge) (Receipt, error)
}

// ApprovalLimitCents is the largest amount the simulated processor
// approves.
const ApprovalLimitCents = 100_00

// Simulated is an in-process stand-in for a real processor's client: it
// approves amounts up to ApprovalLimitCents and declines the rest. Like a
// real client it connects when the App starts (OnStart) and disconnects
// when it stops (OnStop); the module package calls these in dependency
// order.
type Simulated struct {
	log       *slog.Logger
	connected atomic.Bool
	seq       atomic.Int64
}

// NewSimulated returns the simulated client, not connected yet.
func NewSimulated(log *slog.Logger) (Client, error) { return &Simulated{log: log}, nil }

// OnStart connects to the processor.
func (s *Simulated) OnStart(ctx context.Context) error {
	s.connected.Store(true)
	s.log.InfoContext(ctx, "payments: connected to the processor")
	return nil
}

// OnStop disconnects.
func (s *Simulated) OnStop(ctx context.Context) error {
	s.connected.Store(false)
	s.log.InfoContext(ctx, "payments: disconnected from the processor")
	return nil
}

// ErrInvalidAmount is the processor refusing an amount of zero or less.
var ErrInvalidAmount = errors.New("payments: the amount must be positive")

// Charge asks the processor for ch.
func (s *Simulated) Charge(_ context.Context, ch Charge) (Receipt, error) {
	if ch.AmountCents <= 0 {
		return Receipt{}, ErrInvalidAmount
	}
	ref := fmt.Sprintf("sim-%d-%d", ch.OrderID, s.seq.Add(1))
	return Receipt{Reference: ref, Approved: ch.AmountCents <= ApprovalLimitCents}, nil
}
