package verify

import (
	"context"
	"net/http"
	"sync"
)

// verifier holds what one Run shares between checks.
type verifier struct {
	cfg    Config
	client *http.Client
	db     *database // nil without Config.DatabaseURL

	mu  sync.Mutex
	out []Result
}

// Run verifies the server at cfg.BaseURL and returns every result, in the
// order they were found. It returns an error only for an invalid Config;
// an unreachable server or database is reported as FAIL results.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	v := &verifier{cfg: cfg, client: newClient(cfg.Concurrency)}
	defer v.client.CloseIdleConnections()

	needDB := cfg.selected("updates") || cfg.selected("db") || cfg.selected("queries") || cfg.selected("fortunes")
	if needDB && cfg.DatabaseURL == "" {
		v.report(Result{Test: "setup", Check: "database", Status: Warn,
			Detail: "no database URL: the updates persistence and query-count checks are skipped"})
	}
	if needDB && cfg.DatabaseURL != "" {
		db, err := openDatabase(ctx, cfg.DatabaseURL)
		if err != nil {
			v.report(Result{Test: "setup", Check: "database", Status: Fail, Detail: err.Error()})
		} else {
			defer db.close()
			v.db = db
			st := Pass
			if !db.statements {
				st = Warn // exact statement counting is impossible
			}
			v.report(Result{Test: "setup", Check: "query-count", Status: st, Detail: db.countSource()})
		}
	}

	// The Date check's first requests; the second ones come at the end, so
	// the 3 s wait overlaps the other checks and its requests stay out of
	// the counting windows.
	probes := v.startDateCheck(ctx)

	for _, name := range cfg.Tests {
		t := testByName(name)
		f := &findings{test: name}
		switch name {
		case "json":
			v.checkJSON(ctx, f, t)
		case "plaintext":
			v.checkPlaintext(ctx, f, t)
		case "db":
			v.checkDB(ctx, f, t)
		case "queries", "cached-queries", "updates":
			v.checkArray(ctx, f, t)
		case "fortunes":
			v.checkFortunes(ctx, f, t)
		}
		if name == "updates" && v.db != nil {
			v.checkUpdatesPersist(ctx, f, t)
		}
		passCommon(f, t, cfg.BaseURL+t.sample)
		v.report(f.out...)
	}

	if v.db != nil {
		v.runQueryCounts(ctx)
	}
	v.report(v.finishDateCheck(ctx, probes)...)
	return v.out, nil
}

// runQueryCounts runs the query-count checks of the selected tests, one
// after the other so their counters stay apart: the world checks (db,
// queries, updates), nudged with /fortunes, then fortunes, nudged with a
// world test's URL (see checkQueryCount).
func (v *verifier) runQueryCounts(ctx context.Context) {
	specs := countSpecs()
	worldNudge, fortuneNudge := "", ""
	if v.cfg.selected("fortunes") {
		worldNudge = "/fortunes"
	}
	for _, name := range []string{"updates", "queries", "db"} {
		if v.cfg.selected(name) {
			fortuneNudge = testByName(name).sample
		}
	}
	for _, name := range []string{"db", "queries", "updates"} {
		if v.cfg.selected(name) {
			v.report(v.checkQueryCount(ctx, specs[name], worldNudge)...)
		}
	}
	if v.cfg.selected("fortunes") {
		v.report(v.checkQueryCount(ctx, specs["fortunes"], fortuneNudge)...)
	}
}

// report records results and passes them to Config.Report.
func (v *verifier) report(rs ...Result) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, r := range rs {
		v.out = append(v.out, r)
		if v.cfg.Report != nil {
			v.cfg.Report(r)
		}
	}
}
