package apptest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

func TestCreateAccount(t *testing.T) {
	rec := serve(t, "POST", "/accounts", `{"email":"ada@example.com","plan":"pro"}`,
		"Content-Type", "application/json")
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d, body %s", rec.Code, rec.Body)
	}
	var got Account
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got != (Account{ID: "acc_1", Email: "ada@example.com", Plan: "pro"}) {
		t.Errorf("got %+v", got)
	}
}

func TestCreateAccountValidation(t *testing.T) {
	rec := serve(t, "POST", "/accounts", `{"email":"nope","plan":"gold"}`,
		"Content-Type", "application/json")
	p := decodeProblem(t, rec, http.StatusUnprocessableEntity)
	var locations []string
	for _, e := range p.Errors {
		locations = append(locations, e.Location)
	}
	if strings.Join(locations, " ") != "body.email body.plan" {
		t.Errorf("errors at %v, want body.email and body.plan", locations)
	}
}

// A typed operation is a plain function: its logic can be tested without
// HTTP. Binding and validation are not involved then.
func TestCreateAccountConflict(t *testing.T) {
	in := &NewAccount{}
	in.Body.Email, in.Body.Plan = "taken@example.com", "free"
	_, err := CreateAccount(context.Background(), in)
	var p *plinth.Problem
	if !errors.As(err, &p) || p.StatusCode() != http.StatusConflict {
		t.Fatalf("error %v, want a 409 problem", err)
	}
}

func TestOpenAPIDocument(t *testing.T) {
	rec := serve(t, "GET", "/openapi.json", "")
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Paths["/accounts"]["post"] == nil {
		t.Errorf("POST /accounts is not in the document: %s", rec.Body)
	}
}
