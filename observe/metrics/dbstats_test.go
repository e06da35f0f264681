package metrics_test

import (
	"database/sql"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/metrics"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestDBStats(t *testing.T) {
	m := metrics.New(plinth.New(), metrics.Config{})
	var calls atomic.Int32
	m.DBStats("main", func() sql.DBStats {
		calls.Add(1)
		return sql.DBStats{
			MaxOpenConnections: 10, OpenConnections: 4, InUse: 3, Idle: 1,
			WaitCount: 7, WaitDuration: 1500 * time.Millisecond,
			MaxIdleClosed: 2, MaxIdleTimeClosed: 1, MaxLifetimeClosed: 5,
		}
	})
	m.DBStats("replica", func() sql.DBStats { return sql.DBStats{OpenConnections: 1} })
	want := `
# HELP go_sql_in_use_connections The number of connections currently in use.
# TYPE go_sql_in_use_connections gauge
go_sql_in_use_connections{db_name="main"} 3
go_sql_in_use_connections{db_name="replica"} 0
# HELP go_sql_open_connections The number of established connections, in use and idle.
# TYPE go_sql_open_connections gauge
go_sql_open_connections{db_name="main"} 4
go_sql_open_connections{db_name="replica"} 1
# HELP go_sql_wait_count_total The total number of connections waited for.
# TYPE go_sql_wait_count_total counter
go_sql_wait_count_total{db_name="main"} 7
go_sql_wait_count_total{db_name="replica"} 0
# HELP go_sql_wait_duration_seconds_total The total time blocked waiting for a new connection.
# TYPE go_sql_wait_duration_seconds_total counter
go_sql_wait_duration_seconds_total{db_name="main"} 1.5
go_sql_wait_duration_seconds_total{db_name="replica"} 0
# HELP go_sql_idle_connections The number of idle connections.
# TYPE go_sql_idle_connections gauge
go_sql_idle_connections{db_name="main"} 1
go_sql_idle_connections{db_name="replica"} 0
`
	err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"go_sql_in_use_connections", "go_sql_open_connections", "go_sql_idle_connections",
		"go_sql_wait_count_total", "go_sql_wait_duration_seconds_total")
	if err != nil {
		t.Error(err)
	}
	if calls.Load() != 1 {
		t.Errorf("stats called %d times in one scrape, want 1", calls.Load())
	}

	for _, bad := range []struct {
		name  string
		stats func() sql.DBStats
	}{{"", func() sql.DBStats { return sql.DBStats{} }}, {"x", nil}, {"main", func() sql.DBStats { return sql.DBStats{} }}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("DBStats(%q, %v): no panic", bad.name, bad.stats != nil)
				}
			}()
			m.DBStats(bad.name, bad.stats)
		}()
	}
}

// TestDBStatsPool reads a real pool's statistics: database/sql with a
// driver that opens nothing, so no database is needed.
func TestDBStatsPool(t *testing.T) {
	db := sql.OpenDB(nopConnector{})
	defer db.Close()
	db.SetMaxOpenConns(3)
	m := metrics.New(plinth.New(), metrics.Config{})
	m.DBStats("pool", db.Stats)
	want := `
# HELP go_sql_max_open_connections Maximum number of open connections to the database (0: unlimited).
# TYPE go_sql_max_open_connections gauge
go_sql_max_open_connections{db_name="pool"} 3
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "go_sql_max_open_connections"); err != nil {
		t.Error(err)
	}
}
