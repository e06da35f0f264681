package conformance

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// tempDatabase creates a database with the TFB schema (world with 10,000
// rows, fortune with testdata/fortunes.tsv) on the server of
// PLINTH_TEST_POSTGRES and returns its URL; it is dropped when the test
// ends.
func tempDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PLINTH_TEST_POSTGRES")
	if base == "" {
		t.Skip("PLINTH_TEST_POSTGRES is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable): skipping the PostgreSQL conformance test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("PLINTH_TEST_POSTGRES: %v", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("plinth_tfb_test_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
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
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE world (id integer NOT NULL PRIMARY KEY, randomnumber integer NOT NULL DEFAULT 0)`,
		`INSERT INTO world (id, randomnumber) SELECT x, least(floor(random() * 10000 + 1), 10000) FROM generate_series(1, 10000) AS x`,
		`CREATE TABLE fortune (id integer NOT NULL PRIMARY KEY, message varchar(2048) NOT NULL)`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fortunes(t) {
		if _, err := db.Exec(ctx, "INSERT INTO fortune (id, message) VALUES ($1, $2)", f.id, f.message); err != nil {
			t.Fatal(err)
		}
	}
	return dbURL
}

// fortuneRow is a row of testdata/fortunes.tsv.
type fortuneRow struct {
	id      int
	message string
}

// fortunes reads testdata/fortunes.tsv (id TAB message).
func fortunes(t *testing.T) []fortuneRow {
	t.Helper()
	f, err := os.Open("../../testdata/fortunes.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []fortuneRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, msg, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(id)
		if err != nil {
			t.Fatalf("fortunes.tsv: %q", sc.Text())
		}
		rows = append(rows, fortuneRow{n, msg})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
