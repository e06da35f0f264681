package verify

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// database reads the benchmark database: the world table for the updates
// check and the statistics counters for the query-count check.
type database struct {
	url  string
	pool *pgxpool.Pool
	// statements is true when pg_stat_statements can be read; otherwise the
	// table statistics fallback is used and why says why.
	statements bool
	why        string
}

func openDatabase(ctx context.Context, url string) (*database, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	db := &database{url: url, pool: pool}
	var n int64
	err = pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_statements").Scan(&n)
	if err == nil {
		db.statements = true
		return db, nil
	}
	var preload string
	_ = pool.QueryRow(ctx, "SHOW shared_preload_libraries").Scan(&preload)
	db.why = fmt.Sprintf("pg_stat_statements cannot be read (%v; shared_preload_libraries=%q)", err, preload)
	return db, nil
}

func (db *database) close() { db.pool.Close() }

// worldTable returns randomnumber by id for the whole world table. It uses
// its own connection and closes it, so that the statistics of this scan are
// flushed at once rather than landing in a later query-count window.
func (db *database) worldTable(ctx context.Context) (map[int]int, error) {
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, "SELECT id, randomnumber FROM world")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := make(map[int]int, 10000)
	for rows.Next() {
		var id, n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		m[id] = n
	}
	return m, rows.Err()
}
