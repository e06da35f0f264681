package main

import (
	"strconv"
	"testing"

	"github.com/plinth-go/plinth/examples/modular/orders"
	"github.com/plinth-go/plinth/examples/modular/payments"
	"github.com/plinth-go/plinth/module"
	"github.com/plinth-go/plinth/plinthtest"
)

// TestReplacePaymentsClient with plinthtest: the fake processor in one
// line, the App tested through its routes, and every response of a typed
// operation checked against the App's OpenAPI document.
func TestDeclinedWithPlinthtest(t *testing.T) {
	fake := &fakeProcessor{approve: false}
	app := testApp(t, testDB(t), nil, module.Replace[payments.Client](fake))
	c := plinthtest.New(t, app, plinthtest.Config{})

	var o orders.Order
	c.PostJSON("/orders", map[string]any{"item": "teapot", "amount_cents": 100}, "X-User", "ada").
		Status(201).JSON(&o)
	if o.Status != orders.Declined || len(fake.charges) != 1 {
		t.Errorf("order %+v, %d charges: want declined, 1", o, len(fake.charges))
	}
	c.Get("/payments/" + strconv.FormatInt(o.PaymentID, 10)).Status(200).Contains(`"reference":"fake-1"`)
	c.PostJSON("/orders", `{"item":""}`, "X-User", "ada").Problem(422, "").HasField("body.item", "required")
}
