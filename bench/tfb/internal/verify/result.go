package verify

import "fmt"

// Status is the outcome of one check.
type Status int

// The outcomes, from best to worst.
const (
	Pass Status = iota
	Warn
	Fail
)

// String returns PASS, WARN or FAIL.
func (s Status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Warn:
		return "WARN"
	case Fail:
		return "FAIL"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is the outcome of one check against one test type.
type Result struct {
	// Test is the TFB test type ("json", "db", ...) or "setup" for checks
	// that are not tied to one test.
	Test string
	// Check names the rule, e.g. "headers", "content-type", "body",
	// "clamp", "date", "persist", "query-count".
	Check  string
	Status Status
	// URL is the request the finding is about, when there is one.
	URL string
	// Detail says what was expected and what came.
	Detail string
}

// String formats r as one line: STATUS test check URL: detail.
func (r Result) String() string {
	s := fmt.Sprintf("%s %-14s %-13s", r.Status, r.Test, r.Check)
	if r.URL != "" {
		s += " " + r.URL
	}
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	return s
}

// findings collects the results of one test type. Problems are added as
// they are found; pass adds a PASS line for a check only when no problem was
// recorded for it.
type findings struct {
	test string
	out  []Result
}

func (f *findings) add(check string, s Status, url, format string, a ...any) {
	f.out = append(f.out, Result{Test: f.test, Check: check, Status: s, URL: url, Detail: fmt.Sprintf(format, a...)})
}

func (f *findings) fail(check, url, format string, a ...any) {
	f.add(check, Fail, url, format, a...)
}

func (f *findings) warn(check, url, format string, a ...any) {
	f.add(check, Warn, url, format, a...)
}

// pass records a PASS for check unless a WARN or FAIL was recorded for it.
func (f *findings) pass(check, url, format string, a ...any) {
	for _, r := range f.out {
		if r.Check == check {
			return
		}
	}
	f.add(check, Pass, url, format, a...)
}

// Failed reports whether any result is a FAIL.
func Failed(results []Result) bool {
	for _, r := range results {
		if r.Status == Fail {
			return true
		}
	}
	return false
}
