package verify

import (
	"context"
	"fmt"
)

// counters is one reading of the statistics for one table (world or
// fortune). Which fields are filled depends on the source.
type counters struct {
	// From pg_stat_statements, statements of the current database whose
	// text matches the table name as a whole word, case-insensitively:
	// calls and rows summed over all of them, and over those that also
	// match the word "update".
	calls, rows             int64
	updateCalls, updateRows int64

	// From pg_stat_user_tables and pg_statio_user_tables (the fallback):
	// scans = seq_scan + idx_scan, tupRead = seq_tup_read + idx_tup_fetch,
	// tupUpd = n_tup_upd, heapBlks = heap_blks_hit + heap_blks_read.
	scans, tupRead, tupUpd, heapBlks int64
	// xacts is xact_commit + xact_rollback of the database, for the report.
	xacts int64
}

func (c counters) minus(o counters) counters {
	return counters{
		calls: c.calls - o.calls, rows: c.rows - o.rows,
		updateCalls: c.updateCalls - o.updateCalls, updateRows: c.updateRows - o.updateRows,
		scans: c.scans - o.scans, tupRead: c.tupRead - o.tupRead, tupUpd: c.tupUpd - o.tupUpd,
		heapBlks: c.heapBlks - o.heapBlks, xacts: c.xacts - o.xacts,
	}
}

// The patterns are passed as parameters so that pg_stat_statements stores
// this query with $1 and $2 and it never matches itself.
const statementsQuery = `SELECT COALESCE(SUM(calls), 0)::bigint, COALESCE(SUM(rows), 0)::bigint,
	COALESCE(SUM(calls) FILTER (WHERE query ~* $2), 0)::bigint,
	COALESCE(SUM(rows) FILTER (WHERE query ~* $2), 0)::bigint
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query ~* $1`

const tableStatsQuery = `SELECT COALESCE(t.seq_scan, 0) + COALESCE(t.idx_scan, 0),
	COALESCE(t.seq_tup_read, 0) + COALESCE(t.idx_tup_fetch, 0),
	COALESCE(t.n_tup_upd, 0),
	COALESCE(io.heap_blks_hit, 0) + COALESCE(io.heap_blks_read, 0),
	(SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database())
FROM pg_stat_user_tables t JOIN pg_statio_user_tables io USING (relid)
WHERE t.relid = to_regclass($1)`

// read returns the current counters for table ("world" or "fortune").
func (db *database) read(ctx context.Context, table string) (counters, error) {
	var c counters
	if db.statements {
		err := db.pool.QueryRow(ctx, statementsQuery, `\m`+table+`\M`, `\mupdate\M`).
			Scan(&c.calls, &c.rows, &c.updateCalls, &c.updateRows)
		if err != nil {
			return c, fmt.Errorf("reading pg_stat_statements: %w", err)
		}
		return c, nil
	}
	// Each autocommit query starts a new transaction, so the statistics
	// snapshot (stats_fetch_consistency) is fresh.
	err := db.pool.QueryRow(ctx, tableStatsQuery, table).Scan(&c.scans, &c.tupRead, &c.tupUpd, &c.heapBlks, &c.xacts)
	if err != nil {
		return c, fmt.Errorf("reading pg_stat_user_tables for %s: %w", table, err)
	}
	return c, nil
}
