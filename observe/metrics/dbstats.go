package metrics

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DBStats registers the series of a database/sql connection pool, read from
// stats at each scrape and labelled db_name=name: the data layer's
// db.SQL().Stats serves for both its engines, and (*sql.DB).Stats for any
// other pool. The names are those of client_golang's DBStatsCollector, so
// its dashboards work: the gauges go_sql_max_open_connections,
// go_sql_open_connections, go_sql_in_use_connections and
// go_sql_idle_connections, and, as counters because they only grow,
// go_sql_wait_count_total, go_sql_wait_duration_seconds_total and the
// go_sql_max_{idle,idle_time,lifetime}_closed_total closings. Queries made
// through a pgx pool directly (the data layer's db.Pgx()) do not pass
// through database/sql and show in PoolStats' series instead. It panics on
// an empty name, a nil stats, or a name already registered.
func (m *Metrics) DBStats(name string, stats func() sql.DBStats) {
	if name == "" {
		panic("metrics: DBStats: empty name")
	}
	if stats == nil {
		panic(fmt.Sprintf("metrics: DBStats(%q): nil stats func", name))
	}
	if err := m.reg.Register(newDBCollector(name, stats)); err != nil {
		panic(fmt.Sprintf("metrics: DBStats(%q): %v", name, err))
	}
}

type dbCollector struct {
	stats func() sql.DBStats

	maxOpen, open, inUse, idle                   *prometheus.Desc
	waitCount, waitDuration                      *prometheus.Desc
	maxIdleClosed, maxIdleTimeClosed, maxLifeEnd *prometheus.Desc
}

func newDBCollector(name string, stats func() sql.DBStats) *dbCollector {
	desc := func(n, help string) *prometheus.Desc {
		return prometheus.NewDesc("go_sql_"+n, help, nil, prometheus.Labels{"db_name": name})
	}
	return &dbCollector{
		stats:             stats,
		maxOpen:           desc("max_open_connections", "Maximum number of open connections to the database (0: unlimited)."),
		open:              desc("open_connections", "The number of established connections, in use and idle."),
		inUse:             desc("in_use_connections", "The number of connections currently in use."),
		idle:              desc("idle_connections", "The number of idle connections."),
		waitCount:         desc("wait_count_total", "The total number of connections waited for."),
		waitDuration:      desc("wait_duration_seconds_total", "The total time blocked waiting for a new connection."),
		maxIdleClosed:     desc("max_idle_closed_total", "The total number of connections closed due to SetMaxIdleConns."),
		maxIdleTimeClosed: desc("max_idle_time_closed_total", "The total number of connections closed due to SetConnMaxIdleTime."),
		maxLifeEnd:        desc("max_lifetime_closed_total", "The total number of connections closed due to SetConnMaxLifetime."),
	}
}

func (d *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, x := range []*prometheus.Desc{d.maxOpen, d.open, d.inUse, d.idle, d.waitCount, d.waitDuration, d.maxIdleClosed, d.maxIdleTimeClosed, d.maxLifeEnd} {
		ch <- x
	}
}

func (d *dbCollector) Collect(ch chan<- prometheus.Metric) {
	s := d.stats()
	gauge := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v)
	}
	counter := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v)
	}
	gauge(d.maxOpen, float64(s.MaxOpenConnections))
	gauge(d.open, float64(s.OpenConnections))
	gauge(d.inUse, float64(s.InUse))
	gauge(d.idle, float64(s.Idle))
	counter(d.waitCount, float64(s.WaitCount))
	counter(d.waitDuration, s.WaitDuration.Seconds())
	counter(d.maxIdleClosed, float64(s.MaxIdleClosed))
	counter(d.maxIdleTimeClosed, float64(s.MaxIdleTimeClosed))
	counter(d.maxLifeEnd, float64(s.MaxLifetimeClosed))
}

// PoolStat is what a pgx pool reports of itself: *pgxpool.Stat, from
// (*pgxpool.Pool).Stat, has these methods, so that this module needs no
// pgx.
type PoolStat interface {
	MaxConns() int32
	TotalConns() int32
	AcquiredConns() int32
	IdleConns() int32
	ConstructingConns() int32
	AcquireCount() int64
	AcquireDuration() time.Duration
	EmptyAcquireCount() int64
	EmptyAcquireWaitTime() time.Duration
	CanceledAcquireCount() int64
	NewConnsCount() int64
	MaxLifetimeDestroyCount() int64
	MaxIdleDestroyCount() int64
}

// PoolStats registers the series of a pgx pool, read from stat at each
// scrape and labelled db_name=name. Queries through the data layer's
// db.Pgx(), the fast path, take their connections from the pool without
// database/sql, so DBStats reads nothing of them; register both to see
// either path:
//
//	m.DBStats("main", db.SQL().Stats)
//	if pool := db.Pgx(); pool != nil { // PostgreSQL
//		m.PoolStats("main", func() metrics.PoolStat { return pool.Stat() })
//	}
//
// The gauges are pgxpool_max_connections, pgxpool_total_connections
// (acquired, idle and being made), pgxpool_acquired_connections,
// pgxpool_idle_connections and pgxpool_constructing_connections; the
// counters pgxpool_acquires_total, pgxpool_acquire_duration_seconds_total,
// pgxpool_empty_acquires_total (acquires that found no idle connection and
// waited for one to be made or released) with
// pgxpool_empty_acquire_wait_seconds_total, pgxpool_canceled_acquires_total,
// pgxpool_new_connections_total, and the closings
// pgxpool_max_lifetime_destroyed_total and pgxpool_max_idle_destroyed_total.
// A pool whose waits grow is too small, or its queries too slow. It panics
// on an empty name, a nil stat, or a name already registered.
func (m *Metrics) PoolStats(name string, stat func() PoolStat) {
	if name == "" {
		panic("metrics: PoolStats: empty name")
	}
	if stat == nil {
		panic(fmt.Sprintf("metrics: PoolStats(%q): nil stat func", name))
	}
	if err := m.reg.Register(newPoolCollector(name, stat)); err != nil {
		panic(fmt.Sprintf("metrics: PoolStats(%q): %v", name, err))
	}
}

type poolSeries struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(PoolStat) float64
}

type poolCollector struct {
	stat   func() PoolStat
	series []poolSeries
}

func newPoolCollector(name string, stat func() PoolStat) *poolCollector {
	labels := prometheus.Labels{"db_name": name}
	c := &poolCollector{stat: stat}
	add := func(n string, kind prometheus.ValueType, help string, value func(PoolStat) float64) {
		c.series = append(c.series, poolSeries{prometheus.NewDesc("pgxpool_"+n, help, nil, labels), kind, value})
	}
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	add("max_connections", gauge, "The pool's maximum size.", func(s PoolStat) float64 { return float64(s.MaxConns()) })
	add("total_connections", gauge, "Connections in the pool: acquired, idle and being made.", func(s PoolStat) float64 { return float64(s.TotalConns()) })
	add("acquired_connections", gauge, "Connections in use.", func(s PoolStat) float64 { return float64(s.AcquiredConns()) })
	add("idle_connections", gauge, "Idle connections.", func(s PoolStat) float64 { return float64(s.IdleConns()) })
	add("constructing_connections", gauge, "Connections being made.", func(s PoolStat) float64 { return float64(s.ConstructingConns()) })
	add("acquires_total", counter, "Successful acquires from the pool.", func(s PoolStat) float64 { return float64(s.AcquireCount()) })
	add("acquire_duration_seconds_total", counter, "Total time of successful acquires.", func(s PoolStat) float64 { return s.AcquireDuration().Seconds() })
	add("empty_acquires_total", counter, "Successful acquires that waited because no idle connection was available.", func(s PoolStat) float64 { return float64(s.EmptyAcquireCount()) })
	add("empty_acquire_wait_seconds_total", counter, "Total time acquires waited because no idle connection was available.", func(s PoolStat) float64 { return s.EmptyAcquireWaitTime().Seconds() })
	add("canceled_acquires_total", counter, "Acquires cancelled by their context.", func(s PoolStat) float64 { return float64(s.CanceledAcquireCount()) })
	add("new_connections_total", counter, "Connections made.", func(s PoolStat) float64 { return float64(s.NewConnsCount()) })
	add("max_lifetime_destroyed_total", counter, "Connections closed for reaching MaxConnLifetime.", func(s PoolStat) float64 { return float64(s.MaxLifetimeDestroyCount()) })
	add("max_idle_destroyed_total", counter, "Connections closed for reaching MaxConnIdleTime.", func(s PoolStat) float64 { return float64(s.MaxIdleDestroyCount()) })
	return c
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, s := range c.series {
		ch <- s.desc
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stat()
	for _, s := range c.series {
		ch <- prometheus.MustNewConstMetric(s.desc, s.kind, s.value(st))
	}
}
