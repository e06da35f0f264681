package metrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/metrics"
	"github.com/plinth-go/plinth/plinthtest"
)

// fakeStat is a PoolStat with fixed numbers.
type fakeStat struct{}

func (fakeStat) MaxConns() int32                     { return 8 }
func (fakeStat) TotalConns() int32                   { return 5 }
func (fakeStat) AcquiredConns() int32                { return 3 }
func (fakeStat) IdleConns() int32                    { return 2 }
func (fakeStat) ConstructingConns() int32            { return 0 }
func (fakeStat) AcquireCount() int64                 { return 100 }
func (fakeStat) AcquireDuration() time.Duration      { return 2500 * time.Millisecond }
func (fakeStat) EmptyAcquireCount() int64            { return 7 }
func (fakeStat) EmptyAcquireWaitTime() time.Duration { return time.Second }
func (fakeStat) CanceledAcquireCount() int64         { return 1 }
func (fakeStat) NewConnsCount() int64                { return 6 }
func (fakeStat) MaxLifetimeDestroyCount() int64      { return 1 }
func (fakeStat) MaxIdleDestroyCount() int64          { return 0 }

// TestPoolStats: a pgx pool's statistics are exported, each
// read once per scrape.
func TestPoolStats(t *testing.T) {
	m := metrics.New(plinth.New(), metrics.Config{})
	calls := 0
	m.PoolStats("main", func() metrics.PoolStat { calls++; return fakeStat{} })
	want := `
# HELP pgxpool_acquired_connections Connections in use.
# TYPE pgxpool_acquired_connections gauge
pgxpool_acquired_connections{db_name="main"} 3
# HELP pgxpool_acquire_duration_seconds_total Total time of successful acquires.
# TYPE pgxpool_acquire_duration_seconds_total counter
pgxpool_acquire_duration_seconds_total{db_name="main"} 2.5
# HELP pgxpool_empty_acquires_total Successful acquires that waited because no idle connection was available.
# TYPE pgxpool_empty_acquires_total counter
pgxpool_empty_acquires_total{db_name="main"} 7
# HELP pgxpool_max_connections The pool's maximum size.
# TYPE pgxpool_max_connections gauge
pgxpool_max_connections{db_name="main"} 8
# HELP pgxpool_total_connections Connections in the pool: acquired, idle and being made.
# TYPE pgxpool_total_connections gauge
pgxpool_total_connections{db_name="main"} 5
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"pgxpool_acquired_connections", "pgxpool_acquire_duration_seconds_total", "pgxpool_empty_acquires_total",
		"pgxpool_max_connections", "pgxpool_total_connections"); err != nil {
		t.Error(err)
	}
	if calls != 1 {
		t.Errorf("stat called %d times in one scrape, want 1", calls)
	}
	if n, err := testutil.GatherAndCount(m.Registry()); err != nil || n == 0 {
		t.Errorf("gather: %d %v", n, err)
	}
	for _, bad := range []func(){
		func() { m.PoolStats("", func() metrics.PoolStat { return fakeStat{} }) },
		func() { m.PoolStats("x", nil) },
		func() { m.PoolStats("main", func() metrics.PoolStat { return fakeStat{} }) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			bad()
		}()
	}
}

// TestPoolStatsPostgres: queries through a pgx pool, the
// data layer's db.Pgx() fast path, show in the pool's series, where the
// database/sql ones read nothing.
func TestPoolStatsPostgres(t *testing.T) {
	url := plinthtest.PostgresURL(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	m := metrics.New(plinth.New(), metrics.Config{})
	m.PoolStats("main", func() metrics.PoolStat { return pool.Stat() })
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatal(one, err)
	}
	value := func(name string) float64 {
		t.Helper()
		mfs, err := m.Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == name {
				mm := mf.GetMetric()[0]
				if g := mm.GetGauge(); g != nil {
					return g.GetValue()
				}
				return mm.GetCounter().GetValue()
			}
		}
		t.Fatalf("no series %s", name)
		return 0
	}
	if v := value("pgxpool_acquired_connections"); v != 1 {
		t.Errorf("pgxpool_acquired_connections %v while a connection is held, want 1", v)
	}
	if v := value("pgxpool_acquires_total"); v < 1 {
		t.Errorf("pgxpool_acquires_total %v, want at least 1", v)
	}
	if v := value("pgxpool_new_connections_total"); v < 1 {
		t.Errorf("pgxpool_new_connections_total %v, want at least 1", v)
	}
	conn.Release()
	if v := value("pgxpool_acquired_connections"); v != 0 {
		t.Errorf("pgxpool_acquired_connections %v after release, want 0", v)
	}
	if v := value("pgxpool_idle_connections"); v < 1 {
		t.Errorf("pgxpool_idle_connections %v after release, want at least 1", v)
	}
	if v, want := value("pgxpool_max_connections"), float64(pool.Config().MaxConns); v != want {
		t.Errorf("pgxpool_max_connections %v, want %v", v, want)
	}
}
