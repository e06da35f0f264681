package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/plinth-go/plinth/examples/modular/orders"
	"github.com/plinth-go/plinth/examples/modular/payments"
	"github.com/plinth-go/plinth/module"
)

// fakeProcessor is a payments.Client that records its charges and answers
// as told.
type fakeProcessor struct {
	approve bool
	err     error

	mu      sync.Mutex
	charges []payments.Charge
}

func (f *fakeProcessor) Charge(_ context.Context, ch payments.Charge) (payments.Receipt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.charges = append(f.charges, ch)
	if f.err != nil {
		return payments.Receipt{}, f.err
	}
	return payments.Receipt{Reference: "fake-" + strconv.Itoa(len(f.charges)), Approved: f.approve}, nil
}

// One line, module.Replace, puts a fake processor in place of the real
// client; the rest of the graph is the App's own.
func TestReplacePaymentsClient(t *testing.T) {
	fake := &fakeProcessor{approve: false}
	app := testApp(t, testDB(t), nil, module.Replace[payments.Client](fake))

	o := placeOrder(t, app, "ada", 100) // the simulated client would approve it
	if o.Status != orders.Declined {
		t.Errorf("order with a declining processor: %+v", o)
	}
	if len(fake.charges) != 1 || fake.charges[0] != (payments.Charge{OrderID: o.ID, AmountCents: 100}) {
		t.Errorf("the fake was charged %+v", fake.charges)
	}
	res, body := call(t, app, "GET", "/payments/"+strconv.FormatInt(o.PaymentID, 10), "")
	if res.StatusCode != 200 || !strings.Contains(body, `"reference":"fake-1"`) {
		t.Errorf("the recorded payment: %d %s", res.StatusCode, body)
	}
}

// A processor that fails is a 502 problem, and the order stays pending.
func TestPaymentsClientFailure(t *testing.T) {
	fake := &fakeProcessor{err: errors.New("connection refused")}
	app := testApp(t, testDB(t), nil, module.Replace[payments.Client](fake))
	res, body := call(t, app, "POST", "/orders", `{"item":"teapot","amount_cents":100}`, "X-User", "ada")
	if res.StatusCode != http.StatusBadGateway || strings.Contains(body, "connection refused") {
		t.Errorf("POST /orders with a failing processor: %d %s", res.StatusCode, body)
	}
	if res, body := call(t, app, "GET", "/orders/1", ""); res.StatusCode != 200 || !strings.Contains(body, `"status":"pending"`) {
		t.Errorf("the order after the failure: %d %s", res.StatusCode, body)
	}
}
