package verify

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// countSpec is what one request of a test must do to the database, per
// bench/tfb/RULES.md's table: selects statements reading rowsRead rows of table,
// then (updates) between updMin and updMax UPDATE statements changing
// rowsUpdated rows.
type countSpec struct {
	test           string
	path           string
	table          string
	selects        int64
	rowsRead       int64
	updMin, updMax int64
	rowsUpdated    int64
}

// duplicateAllowance is the fraction of rows updated that may be missing
// because a request drew an id twice.
const duplicateAllowance = 0.005

// countSpecs are the query-count checks TFB runs, keyed by test type.
func countSpecs() map[string]countSpec {
	return map[string]countSpec{
		"db":       {test: "db", path: "/db", table: "world", selects: 1, rowsRead: 1},
		"queries":  {test: "queries", path: "/queries?queries=20", table: "world", selects: 20, rowsRead: 20},
		"fortunes": {test: "fortunes", path: "/fortunes", table: "fortune", selects: 1, rowsRead: 12},
		"updates": {test: "updates", path: "/updates?queries=20", table: "world", selects: 20, rowsRead: 20,
			updMin: 1, updMax: 20, rowsUpdated: 20},
	}
}

// checkQueryCount reads the counters, sends Concurrency requests at once,
// waits for the counters to settle, and compares the difference with spec.
//
// Without pg_stat_statements the table statistics of the server's backends
// arrive late: PostgreSQL 15 flushes a backend's pending statistics when it
// goes idle at least 1 s after its previous flush, else 10 s later. So
// after each burst the verifier waits 1.1 s and sends a "nudge" burst to
// nudge, a URL that touches only the other table, which makes every pooled
// backend flush; without a nudge URL it polls for up to StatsTimeout.
func (v *verifier) checkQueryCount(ctx context.Context, spec countSpec, nudge string) []Result {
	f := &findings{test: spec.test}
	url := v.cfg.BaseURL + spec.path
	// Let statistics of earlier requests arrive before the first reading.
	before, err := v.settle(ctx, spec.table, nil, nudge)
	if err != nil {
		f.fail("query-count", url, "%v", err)
		return f.out
	}
	n, errs := v.burst(ctx, spec.path, v.cfg.Concurrency)
	if len(errs) > 0 {
		f.fail("query-count", url, "%d of %d concurrent requests failed, e.g. %s", len(errs), v.cfg.Concurrency, errs[0])
	}
	if n == 0 {
		return f.out
	}
	checks := v.countChecks(spec, int64(n))
	reached := func(c counters) bool {
		d := c.minus(before)
		for _, k := range checks {
			if k.got(d) < k.low {
				return false
			}
		}
		return true
	}
	after, err := v.settle(ctx, spec.table, reached, nudge)
	if err != nil {
		f.fail("query-count", url, "%v", err)
		return f.out
	}
	d := after.minus(before)
	for _, k := range checks {
		got := k.got(d)
		msg := fmt.Sprintf("%d requests: %d %s; expected %d", n, got, k.what, k.want)
		if k.check == "query-count" && !v.db.statements {
			msg += fmt.Sprintf(" (%d transactions, not judged)", d.xacts)
		}
		switch {
		case got < k.low:
			if k.low < k.want {
				msg += fmt.Sprintf(", at least %d", k.low)
			}
			f.fail(k.check, url, "%s%s", msg, k.failHint)
		case k.high > 0 && got > k.high:
			f.warn(k.check, url, "%s, more than 105%% (%d)", msg, k.high)
		default:
			f.pass(k.check, url, "%s", msg)
		}
	}
	return f.out
}

// countCheck is one compared quantity.
type countCheck struct {
	check     string
	what      string
	got       func(counters) int64
	want, low int64
	high      int64 // 0: no upper bound
	failHint  string
}

// countChecks builds the comparisons for n successful requests, from
// pg_stat_statements when available and from the table statistics
// otherwise.
func (v *verifier) countChecks(s countSpec, n int64) []countCheck {
	low := func(want int64) int64 { return int64(math.Ceil(float64(want) * (1 - v.cfg.LowMargin))) }
	// A request may draw the same id twice (about 1 in 50 requests of 20
	// rows); that row is updated once, so allow 0.5% fewer updated rows.
	lowUpdated := func(want int64) int64 {
		return int64(math.Ceil(float64(want) * (1 - v.cfg.LowMargin - duplicateAllowance)))
	}
	high := func(want int64) int64 { return int64(math.Floor(float64(want) * 1.05)) }
	stmtsMin := n * (s.selects + s.updMin)
	stmtsMax := n * (s.selects + s.updMax)
	updates := s.rowsUpdated > 0
	var cs []countCheck
	if v.db.statements {
		src := "pg_stat_statements"
		cs = append(cs, countCheck{
			check: "query-count", what: fmt.Sprintf("statements touching %s (%s SUM(calls))", s.table, src),
			got: func(c counters) int64 { return c.calls }, want: stmtsMin, low: low(stmtsMin), high: high(stmtsMax),
			failHint: " - each row must be read by its own statement, every request",
		})
		if updates {
			cs = append(cs,
				countCheck{check: "query-count", what: fmt.Sprintf("SELECTs of %s (%s SUM(calls) without UPDATE)", s.table, src),
					got: func(c counters) int64 { return c.calls - c.updateCalls }, want: n * s.selects, low: low(n * s.selects),
					failHint: " - each row must be SELECTed by id on its own"},
				countCheck{check: "rows-updated", what: fmt.Sprintf("rows updated (%s SUM(rows) of UPDATEs of %s)", src, s.table),
					got: func(c counters) int64 { return c.updateRows }, want: n * s.rowsUpdated, low: lowUpdated(n * s.rowsUpdated), high: high(n * s.rowsUpdated)})
		} else {
			cs = append(cs, countCheck{check: "rows", what: fmt.Sprintf("rows read (%s SUM(rows) touching %s)", src, s.table),
				got: func(c counters) int64 { return c.rows }, want: n * s.rowsRead, low: low(n * s.rowsRead), high: high(n * s.rowsRead)})
		}
		return cs
	}
	src := "pg_stat_user_tables." + s.table
	cs = append(cs, countCheck{
		check: "query-count", what: fmt.Sprintf("scans of %s (%s seq_scan+idx_scan, one per statement)", s.table, src),
		got: func(c counters) int64 { return c.scans }, want: stmtsMin, low: low(stmtsMin), high: high(stmtsMax),
		failHint: " - each row must be read by its own statement, every request",
	})
	readsHigh := high(n * s.rowsRead)
	if updates {
		readsHigh = 0 // the UPDATE's own scan reads rows too
	}
	cs = append(cs, countCheck{check: "rows", what: fmt.Sprintf("rows read (%s seq_tup_read+idx_tup_fetch)", src),
		got: func(c counters) int64 { return c.tupRead }, want: n * s.rowsRead, low: low(n * s.rowsRead), high: readsHigh})
	if updates {
		cs = append(cs, countCheck{check: "rows-updated", what: fmt.Sprintf("rows updated (%s n_tup_upd)", src),
			got: func(c counters) int64 { return c.tupUpd }, want: n * s.rowsUpdated, low: lowUpdated(n * s.rowsUpdated), high: high(n * s.rowsUpdated)})
	}
	cs = append(cs, countCheck{
		check: "batching", what: fmt.Sprintf("heap page visits (pg_statio_user_tables.%s heap_blks_hit+heap_blks_read)", s.table),
		got: func(c counters) int64 { return c.heapBlks }, want: n * s.selects, low: low(n * s.selects),
		failHint: " - a statement per row visits its row's page on its own; fewer visits mean rows were fetched in batches (WHERE id IN/ANY)",
	})
	return cs
}

// settle waits for the counters of table to stop moving and returns the
// last reading. With pg_stat_statements, which counts synchronously, it
// polls until reached (nil: always) holds and nothing changed for 300 ms,
// for at most 3 s. Otherwise it first lets 1.1 s pass and sends a burst to
// nudge (see checkQueryCount), then polls until reached holds and nothing
// changed for 500 ms (1 s without a nudge URL), for at most StatsTimeout.
func (v *verifier) settle(ctx context.Context, table string, reached func(counters) bool, nudge string) (counters, error) {
	stable, timeout := 300*time.Millisecond, 3*time.Second
	if !v.db.statements {
		stable, timeout = time.Second, v.cfg.StatsTimeout
		if nudge != "" {
			stable = 500 * time.Millisecond
			if err := sleep(ctx, 1100*time.Millisecond); err != nil {
				return counters{}, err
			}
			v.burst(ctx, nudge, v.cfg.Concurrency)
		}
	}
	deadline := time.Now().Add(timeout)
	last, err := v.db.read(ctx, table)
	if err != nil {
		return last, err
	}
	since := time.Now()
	for {
		if (reached == nil || reached(last)) && time.Since(since) >= stable {
			return last, nil
		}
		if time.Now().After(deadline) {
			return last, nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return last, err
		}
		c, err := v.db.read(ctx, table)
		if err != nil {
			return last, err
		}
		if c != last {
			last, since = c, time.Now()
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// countSource describes where the query counts come from, for the report.
func (db *database) countSource() string {
	if db.statements {
		return "pg_stat_statements: SUM(calls) and SUM(rows) of this database's statements matching the table name (\\mworld\\M, \\mfortune\\M), and of those also matching \\mupdate\\M"
	}
	return strings.Join([]string{
		db.why + "; counting from table statistics instead:",
		"statements = seq_scan+idx_scan (one scan per SELECT by id; on PostgreSQL <= 16 an IN/ANY list also counts one index scan per element),",
		"rows read = seq_tup_read+idx_tup_fetch, rows updated = n_tup_upd, batching = heap_blks_hit+heap_blks_read >= SELECTs;",
		"transactions (pg_stat_database xact_commit+xact_rollback) are shown, not judged;",
		"backends flush these up to 10 s late, so each window nudges them with requests touching the other table, or waits",
	}, " ")
}
