// Package tfbtest holds what the tests of bench/tfb share: a temporary
// database with the TFB schema on the server of PLINTH_TEST_POSTGRES.
package tfbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plinth-go/plinth/plinthtest"
)

// Fortune is a row of the fortune table.
type Fortune struct {
	ID      int
	Message string
}

// TempDatabase creates a uniquely named database holding the TFB schema
// (world with 10,000 rows, randomnumber uniformly in 1..10000; fortune with
// fortunes) on the server of PLINTH_TEST_POSTGRES, analyzed, dropped when
// the test ends, and returns its URL. Without the variable the test is
// skipped with a message naming it.
func TempDatabase(t *testing.T, fortunes []Fortune) string {
	t.Helper()
	base := plinthtest.PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("PLINTH_TEST_POSTGRES: %v", err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "plinth_tfb_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" ENCODING 'UTF8' TEMPLATE template0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dbURL := u.String()
	c, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"CREATE TABLE world (id integer NOT NULL PRIMARY KEY, randomnumber integer NOT NULL DEFAULT 0)",
		"INSERT INTO world (id, randomnumber) SELECT x, least(floor(random() * 10000 + 1), 10000) FROM generate_series(1, 10000) AS x",
		"CREATE TABLE fortune (id integer NOT NULL PRIMARY KEY, message varchar(2048) NOT NULL)",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fortunes {
		if _, err := c.Exec(ctx, "INSERT INTO fortune (id, message) VALUES ($1, $2)", f.ID, f.Message); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Exec(ctx, "ANALYZE world, fortune"); err != nil {
		t.Fatal(err)
	}
	return dbURL
}
