// Command huma-api is the compile benchmark's api app on huma v2 with its
// net/http adapter (humago): typed CRUD of tasks in SQLite
// (modernc.org/sqlite through database/sql), validated by huma's JSON
// Schema, with the OpenAPI document at /openapi.json and docs at /docs.
package main

import (
	"context"
	"log"
	"net/http"
	"os"
)

func main() {
	path := os.Getenv("DATABASE_PATH")
	if path == "" {
		path = "data.db"
	}
	st, err := openStore(context.Background(), path)
	if err != nil {
		log.Fatal(err)
	}
	defer st.db.Close()
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log.Fatal(http.ListenAndServe(addr, newHandler(st)))
}
