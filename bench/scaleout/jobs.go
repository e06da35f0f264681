package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// jobsWait bounds the wait, after the load, for every enqueued job to run.
const jobsWait = 60 * time.Second

// waitJobs waits (up to jobsWait) until every job answered 202 has run at
// least once, reading job_effects in PostgreSQL directly, and returns a
// summary and the runs by token.
func (r *rehearsal) waitJobs(ctx context.Context, jobs []jobRecord) (string, map[string]int) {
	t0 := time.Now()
	var runs map[string]int
	var lastErr error
	missing := len(jobs)
	for {
		got, err := r.pg.jobRuns(ctx)
		if err == nil {
			runs, missing = got, 0
			for _, j := range jobs {
				if runs[j.Token] == 0 {
					missing++
				}
			}
		}
		lastErr = err
		if (err == nil && missing == 0) || time.Since(t0) > jobsWait || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Second)
	}
	if runs == nil {
		runs = map[string]int{}
	}
	s := fmt.Sprintf("%d of %d enqueued jobs had run %.1f s after the load stopped", len(jobs)-missing, len(jobs), time.Since(t0).Seconds())
	if lastErr != nil {
		s += fmt.Sprintf(" (reading job_effects: %v)", lastErr)
	}
	return s, runs
}

// ranUnacknowledged counts this run's jobs that ran although their POST
// /jobs got no 202 (an error or a timeout after the job was enqueued).
func ranUnacknowledged(runs map[string]int, jobs []jobRecord, runID string) int {
	acked := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		acked[j.Token] = true
	}
	n := 0
	for token, count := range runs {
		if count > 0 && strings.HasPrefix(token, runID+"-") && !acked[token] {
			n++
		}
	}
	return n
}
