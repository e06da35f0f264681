package main

import (
	"crypto/rand"
	"log"
	"net/http"
	"os"
)

func main() {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		log.Fatal(err)
	}
	h, err := NewHandler(key)
	if err != nil {
		log.Fatal(err)
	}
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	srv := &http.Server{Addr: addr, Handler: h}
	log.Printf("gin site: serving on %s", addr)
	log.Fatal(srv.ListenAndServe())
}
