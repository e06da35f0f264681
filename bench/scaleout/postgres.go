package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgBin is where Debian's PostgreSQL 15 keeps initdb and pg_ctl.
const pgBin = "/usr/lib/postgresql/15/bin"

// postgres is the rehearsal's own PostgreSQL cluster, in the temporary
// directory on a free port: never the machine's 5432. initdb refuses to
// run as root, so every command runs as the postgres user (runuser).
type postgres struct {
	procs *procs
	data  string // the cluster's directory, also its socket directory
	port  int
}

// startPostgres creates a cluster (trust authentication), starts it and
// creates the database web.
func startPostgres(ctx context.Context, p *procs, dir string, port int) (*postgres, error) {
	pg := &postgres{procs: p, data: filepath.Join(dir, "pg"), port: port}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Mkdir(pg.data, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chown(pg.data, uid, gid); err != nil {
		return nil, err
	}
	if err := p.run(pg.asPostgres(filepath.Join(pgBin, "initdb"), "-D", pg.data, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--no-sync", "--no-instructions"), "postgres-init.log"); err != nil {
		return nil, err
	}
	if err := pg.start(); err != nil {
		return nil, err
	}
	conn, err := pg.connect(ctx, "postgres")
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE web"); err != nil {
		return nil, fmt.Errorf("create database web: %w", err)
	}
	return pg, nil
}

// asPostgres returns a command running name as the postgres user.
func (pg *postgres) asPostgres(name string, args ...string) *exec.Cmd {
	return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
}

// options are the server's options, given to pg_ctl at start and restart.
func (pg *postgres) options() string {
	return fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", pg.port, pg.data)
}

// start starts the server and waits until it accepts connections.
func (pg *postgres) start() error {
	return pg.procs.run(pg.asPostgres(filepath.Join(pgBin, "pg_ctl"), "-D", pg.data, "-o", pg.options(),
		"-l", filepath.Join(pg.data, "server.log"), "-w", "-t", "60", "start"), "postgres.log")
}

// restart is `pg_ctl restart -m fast`: sessions are disconnected, the server
// stops cleanly and starts again; it returns when the server accepts
// connections.
func (pg *postgres) restart() error {
	return pg.procs.run(pg.asPostgres(filepath.Join(pgBin, "pg_ctl"), "-D", pg.data, "-o", pg.options(),
		"-l", filepath.Join(pg.data, "server.log"), "-m", "fast", "-w", "-t", "60", "restart"), "postgres.log")
}

// stop stops the server at once (-m immediate): the rehearsal is over.
func (pg *postgres) stop() error {
	return pg.procs.run(pg.asPostgres(filepath.Join(pgBin, "pg_ctl"), "-D", pg.data, "-m", "immediate", "-w", "stop"), "postgres.log")
}

// url is the URL of database db.
func (pg *postgres) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", pg.port, db)
}

// connect opens one connection to database db.
func (pg *postgres) connect(ctx context.Context, db string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return pgx.Connect(ctx, pg.url(db))
}

// probe reports whether the server answers a new connection's query
// within 2 s (a shorter bound counted a server busy with the instances'
// reconnections as down).
func (pg *postgres) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.url("web"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var one int
	return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// jobRuns reads job_effects: token -> runs. A missing table (no job ran
// yet, or the app has no jobs) is an empty map and the error.
func (pg *postgres) jobRuns(ctx context.Context) (map[string]int, error) {
	conn, err := pg.connect(ctx, "web")
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT token, runs FROM job_effects")
	if err != nil {
		return map[string]int{}, err
	}
	runs := map[string]int{}
	for rows.Next() {
		var token string
		var n int
		if err := rows.Scan(&token, &n); err != nil {
			return runs, err
		}
		runs[token] = n
	}
	return runs, rows.Err()
}
