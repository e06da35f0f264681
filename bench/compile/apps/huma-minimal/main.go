// Command huma-minimal is the compile benchmark's minimal app on huma v2 with
// its net/http adapter (humago): one GET operation answering a short text,
// GET /hello/{name}.
package main

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

type helloInput struct {
	Name string `path:"name"`
}

type helloOutput struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func newHandler() http.Handler {
	mux := http.NewServeMux()
	api := humago.New(mux, huma.DefaultConfig("Minimal", "1.0.0"))
	huma.Get(api, "/hello/{name}", hello)
	return mux
}

func hello(ctx context.Context, in *helloInput) (*helloOutput, error) {
	return &helloOutput{ContentType: "text/plain; charset=utf-8", Body: []byte("Hello, " + in.Name + "!\n")}, nil
}

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log.Fatal(http.ListenAndServe(addr, newHandler()))
}
