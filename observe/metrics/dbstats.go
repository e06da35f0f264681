package metrics

import (
	"database/sql"
	"fmt"

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
// go_sql_max_{idle,idle_time,lifetime}_closed_total closings. It panics on
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
