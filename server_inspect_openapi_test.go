package plinth_test

import (
	"errors"
	"testing"

	"github.com/plinth-go/plinth"
)

func TestAppOpenAPI(t *testing.T) {
	app := plinth.Bare()
	if doc, err := app.OpenAPI(); doc != nil || err != nil {
		t.Errorf("no document registered: %q, %v; want nil, nil", doc, err)
	}
	app.SetOpenAPI(func() ([]byte, error) { return []byte(`{"openapi":"3.1.0"}`), nil })
	if doc, err := app.OpenAPI(); string(doc) != `{"openapi":"3.1.0"}` || err != nil {
		t.Errorf("got %q, %v", doc, err)
	}
	boom := errors.New("boom")
	app.SetOpenAPI(func() ([]byte, error) { return nil, boom })
	if _, err := app.OpenAPI(); err != boom {
		t.Errorf("error %v, want the function's", err)
	}
}
