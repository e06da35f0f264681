// Command std-api is the compile benchmark's api app on net/http alone: typed
// CRUD of tasks in SQLite (modernc.org/sqlite through database/sql), bodies
// validated by go-playground/validator.
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
