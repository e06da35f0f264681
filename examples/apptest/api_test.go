package apptest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/plinth-go/plinth"
)

// Every response of POST /accounts is also checked against the App's
// OpenAPI document (status declared, content type, body schema).
func TestCreateAccount(t *testing.T) {
	var got Account
	client(t).PostJSON("/accounts", map[string]string{"email": "ada@example.com", "plan": "pro"}).
		Status(201).JSON(&got)
	if got != (Account{ID: "acc_1", Email: "ada@example.com", Plan: "pro"}) {
		t.Errorf("got %+v", got)
	}
}

func TestCreateAccountValidation(t *testing.T) {
	client(t).PostJSON("/accounts", `{"email":"nope","plan":"gold"}`).
		Problem(422, "").HasField("body.email", "email").HasField("body.plan", "")
}

func TestCreateAccountConflict(t *testing.T) {
	client(t).PostJSON("/accounts", `{"email":"taken@example.com","plan":"free"}`).
		Problem(409, "").HasDetail("exists")
}

// A typed operation is a plain function: its logic can be tested without
// HTTP. Binding and validation are not involved then.
func TestCreateAccountLogic(t *testing.T) {
	in := &NewAccount{}
	in.Body.Email, in.Body.Plan = "taken@example.com", "free"
	_, err := CreateAccount(context.Background(), in)
	var p *plinth.Problem
	if !errors.As(err, &p) || p.StatusCode() != http.StatusConflict {
		t.Fatalf("error %v, want a 409 problem", err)
	}
}

func TestOpenAPIDocument(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	client(t).Get("/openapi.json").Status(200).JSON(&doc)
	if doc.Paths["/accounts"]["post"] == nil {
		t.Error("POST /accounts is not in the document")
	}
}
