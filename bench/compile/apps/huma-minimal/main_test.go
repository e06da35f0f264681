package main

import (
	"net/http/httptest"
	"testing"
)

func TestHello(t *testing.T) {
	w := httptest.NewRecorder()
	newHandler().ServeHTTP(w, httptest.NewRequest("GET", "/hello/gopher", nil))
	if w.Code != 200 || w.Body.String() != "Hello, gopher!\n" {
		t.Fatalf("GET /hello/gopher = %d %q", w.Code, w.Body.String())
	}
}
