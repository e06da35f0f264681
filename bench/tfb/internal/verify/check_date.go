package verify

import (
	"context"
	"net/http"
	"time"
)

// dateProbe is the first half of the Date check: one response per test
// type, remembered so that a second request after Config.DateWait can be
// compared with it.
type dateProbe struct {
	t    *testType
	url  string
	date string
	at   time.Time
}

// startDateCheck requests every selected test's sample URL and records the
// Date headers.
func (v *verifier) startDateCheck(ctx context.Context) []dateProbe {
	var probes []dateProbe
	for _, name := range v.cfg.Tests {
		t := testByName(name)
		r, err := v.get(ctx, t.sample)
		if err != nil || r.status != http.StatusOK {
			continue // the test's own checks report the failure
		}
		probes = append(probes, dateProbe{t: t, url: r.url, date: r.header.Get("Date"), at: time.Now()})
	}
	return probes
}

// finishDateCheck waits until DateWait has passed since the first requests,
// requests again and fails a test whose Date did not change.
func (v *verifier) finishDateCheck(ctx context.Context, probes []dateProbe) []Result {
	var out []Result
	if len(probes) == 0 {
		return nil
	}
	if wait := time.Until(probes[len(probes)-1].at.Add(v.cfg.DateWait)); wait > 0 {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
	for _, p := range probes {
		f := &findings{test: p.t.name}
		r, err := v.get(ctx, p.t.sample)
		switch {
		case err != nil:
			f.fail("date", p.url, "second request failed: %v", err)
		case r.status != http.StatusOK:
			f.fail("date", p.url, "second request: status %d", r.status)
		case p.date == "" || r.header.Get("Date") == "":
			f.fail("date", p.url, "no Date header")
		case r.header.Get("Date") == p.date:
			f.fail("date", p.url, "Date %q did not change after %v: it must be computed at least once a second", p.date, v.cfg.DateWait)
		default:
			f.pass("date", p.url, "changed from %q to %q after %v", p.date, r.header.Get("Date"), v.cfg.DateWait)
		}
		out = append(out, f.out...)
	}
	return out
}
