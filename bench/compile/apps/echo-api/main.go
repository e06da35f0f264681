// Command echo-api is the compile benchmark's api app on echo: typed CRUD of
// tasks in SQLite (modernc.org/sqlite through database/sql), bodies validated
// by go-playground/validator as echo's Validator.
package main

import (
	"context"
	"log"
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
	e := newEcho(st)
	e.Logger.Fatal(e.Start(addr))
}
