package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/examples/modular/orders"
	"github.com/plinth-go/plinth/examples/modular/payments"
)

// The shop on its default database, SQLite (a file in a temp dir).
func TestShop(t *testing.T) { testShop(t, testDB(t)) }

// The same on PostgreSQL, in a database made for the test.
func TestShopPostgres(t *testing.T) { testShop(t, openMigrated(t, tempPostgres(t))) }

func testShop(t *testing.T, db *data.DB) {
	app := testApp(t, db, nil)

	// users: the seeded user, a new one, a taken name, a missing id.
	res, body := call(t, app, "GET", "/users", "")
	if res.StatusCode != 200 || !strings.Contains(body, `"name":"ada"`) {
		t.Fatalf("GET /users: %d %s", res.StatusCode, body)
	}
	if !strings.HasPrefix(res.Header.Get("Server-Timing"), "users;dur=") {
		t.Errorf("GET /users: Server-Timing %q, want the users module's timing", res.Header.Get("Server-Timing"))
	}
	res, body = call(t, app, "POST", "/users", `{"name":"grace"}`)
	if res.StatusCode != http.StatusCreated || !strings.HasPrefix(res.Header.Get("Location"), "/users/") {
		t.Fatalf("POST /users: %d %s", res.StatusCode, body)
	}
	if res, body := call(t, app, "GET", res.Header.Get("Location"), ""); res.StatusCode != 200 || !strings.Contains(body, `"grace"`) {
		t.Errorf("GET the new user: %d %s", res.StatusCode, body)
	}
	if res, body := call(t, app, "POST", "/users", `{"name":"grace"}`); res.StatusCode != http.StatusConflict {
		t.Errorf("POST /users with a taken name: %d %s", res.StatusCode, body)
	}
	if res, _ := call(t, app, "POST", "/users", `{"name":""}`); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("POST /users with an empty name: %d", res.StatusCode)
	}
	if res, _ := call(t, app, "GET", "/users/999", ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /users/999: %d", res.StatusCode)
	}

	// orders: placed by grace, paid through the payments module.
	o := placeOrder(t, app, "grace", 2500)
	if o.Status != orders.Paid || o.PaymentID == 0 {
		t.Errorf("order of 25.00: %+v, want paid", o)
	}
	res, body = call(t, app, "GET", "/orders/"+strconv.FormatInt(o.ID, 10), "")
	if res.StatusCode != 200 || !strings.Contains(body, `"status":"paid"`) || !strings.Contains(body, `"item":"teapot"`) {
		t.Errorf("GET the order: %d %s", res.StatusCode, body)
	}
	if got := res.Header.Get("Server-Timing"); !strings.HasPrefix(got, "orders;dur=") {
		t.Errorf("GET the order: Server-Timing %q", got)
	}
	if res, _ := call(t, app, "GET", "/orders/999", ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /orders/999: %d", res.StatusCode)
	}
	big := placeOrder(t, app, "ada", payments.ApprovalLimitCents+1)
	if big.Status != orders.Declined {
		t.Errorf("order above the approval limit: %+v, want declined", big)
	}

	// payments: what the orders recorded.
	res, body = call(t, app, "GET", "/payments?order_id="+strconv.FormatInt(o.ID, 10), "")
	var ps []payments.Payment
	if err := json.Unmarshal([]byte(body), &ps); res.StatusCode != 200 || err != nil || len(ps) != 1 ||
		!ps[0].Approved || ps[0].AmountCents != 2500 || ps[0].ID != o.PaymentID {
		t.Errorf("GET /payments?order_id: %d %s (%v)", res.StatusCode, body, err)
	}
	res, body = call(t, app, "GET", "/payments/"+strconv.FormatInt(big.PaymentID, 10), "")
	if res.StatusCode != 200 || !strings.Contains(body, `"approved":false`) {
		t.Errorf("GET the declined payment: %d %s", res.StatusCode, body)
	}
	if res, _ := call(t, app, "GET", "/payments", ""); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("GET /payments without order_id: %d", res.StatusCode)
	}
}

// placeOrder places an order of a teapot for user and returns it.
func placeOrder(t *testing.T, h http.Handler, user string, cents int64) orders.Order {
	t.Helper()
	res, body := call(t, h, "POST", "/orders", `{"item":"teapot","amount_cents":`+strconv.FormatInt(cents, 10)+`}`, "X-User", user)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /orders as %s: %d %s", user, res.StatusCode, body)
	}
	var o orders.Order
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("Location") != "/orders/"+strconv.FormatInt(o.ID, 10) {
		t.Errorf("Location %q for order %d", res.Header.Get("Location"), o.ID)
	}
	return o
}

// The guard on POST /orders: 401 without X-User, 403 for a name nobody
// has, as problem JSON, and the handler does not run.
func TestGuardRefuses(t *testing.T) {
	app := testApp(t, testDB(t), nil)
	for _, tc := range []struct {
		name   string
		hdr    []string
		status int
	}{
		{"no header", nil, http.StatusUnauthorized},
		{"unknown user", []string{"X-User", "mallory"}, http.StatusForbidden},
	} {
		res, body := call(t, app, "POST", "/orders", `{"item":"teapot","amount_cents":100}`, tc.hdr...)
		if res.StatusCode != tc.status || res.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s %s, want %d problem JSON", tc.name, res.StatusCode, res.Header.Get("Content-Type"), body, tc.status)
		}
	}
	if res, _ := call(t, app, "GET", "/orders/1", ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("a refused request made an order: GET /orders/1 %d", res.StatusCode)
	}
	// Reading does not need a user.
	o := placeOrder(t, app, "ada", 100)
	if res, _ := call(t, app, "GET", "/orders/"+strconv.FormatInt(o.ID, 10), ""); res.StatusCode != 200 {
		t.Errorf("GET an order without X-User: %d", res.StatusCode)
	}
}

// /openapi.json tags every operation with its module's name.
func TestOpenAPITags(t *testing.T) {
	app := testApp(t, testDB(t), nil)
	res, body := call(t, app, "GET", "/openapi.json", "")
	if res.StatusCode != 200 {
		t.Fatalf("GET /openapi.json: %d", res.StatusCode)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Tags []string `json:"tags"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"GET /users": "users", "POST /users": "users", "GET /users/{id}": "users",
		"POST /orders": "orders", "GET /orders/{id}": "orders",
		"GET /payments": "payments", "GET /payments/{id}": "payments",
	}
	for op, tag := range want {
		method, path, _ := strings.Cut(op, " ")
		got := doc.Paths[path][strings.ToLower(method)].Tags
		if len(got) != 1 || got[0] != tag {
			t.Errorf("%s: tags %v, want [%s]", op, got, tag)
		}
	}
}
