package bench

// The jobs core's enqueue path, in process, without a store:
//
//   - BenchmarkJobsEnqueue/plinth: Client.Enqueue of a two-field job on a
//     backend that stores nothing: the kind's lookup, the options, the JSON
//     encoding, the 1 MiB check and the call into the backend; with two
//     options (Queue, Priority) too.
//   - BenchmarkJobsEnqueue/json.Marshal: encoding the same arguments
//     alone, the floor any JSON-argument queue pays (River encodes its
//     arguments with encoding/json too).
//
// A real enqueue is a database insert (tens of microseconds to a commit's
// milliseconds): bench/services measures it beside raw River. This is the
// part the core adds in front of it.
//
// Run:
//
//	bench/run-jobs.sh   (interleaved passes, one CPU, under the wall-clock lock)
//
// The figures are in BENCHMARKS.md, "Jobs: the enqueue path".

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
)

type benchMail struct {
	Email string `json:"email"`
	Name  string `json:"name"`
}

func (benchMail) Kind() string { return "bench_mail" }

// nopJobs stores nothing.
type nopJobs struct{ jobs.Backend }

var nopResults = make([]jobs.Result, 1)

func (nopJobs) Insert(context.Context, []jobs.Insert) ([]jobs.Result, error) { return nopResults, nil }

func BenchmarkJobsEnqueue(b *testing.B) {
	c := jobstest.NewClient(b, nopJobs{})
	jobs.Handle(c, func(context.Context, *jobs.Job[benchMail]) error { return nil })
	ctx := context.Background()
	var args jobs.Args = benchMail{Email: "ada@example.com", Name: "Ada Lovelace"}
	b.Run("plinth", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Enqueue(ctx, args, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	opts := &jobs.EnqueueOpts{Queue: "mail", Priority: 2}
	b.Run("plinth-2-options", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Enqueue(ctx, args, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
