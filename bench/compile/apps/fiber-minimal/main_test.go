package main

import (
	"io"
	"net/http/httptest"
	"testing"
)

func TestHello(t *testing.T) {
	resp, err := newApp().Test(httptest.NewRequest("GET", "/hello/gopher", nil))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "Hello, gopher!\n" {
		t.Fatalf("GET /hello/gopher = %d %q", resp.StatusCode, body)
	}
}
