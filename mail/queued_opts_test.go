package mail_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

// TestQueuedScheduleAndUniqueKey: Enqueue's ScheduledAt delays the
// delivery, its UniqueKey makes a second enqueue of the same key a
// duplicate; a ScheduledAt of QueuedConfig.Opts holds when Enqueue's opts
// set other fields only.
func TestQueuedScheduleAndUniqueKey(t *testing.T) {
	ctx := context.Background()
	mem := mailtest.New()
	b, c, _ := newQueue(t, mem)
	q := mail.NewQueued(mail.QueuedConfig{Client: c, Opts: jobs.EnqueueOpts{Queue: "mail"}})
	at := time.Now().Add(time.Hour).Round(0)
	res, err := q.Enqueue(ctx, valid(), &jobs.EnqueueOpts{ScheduledAt: at})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := b.Job(ctx, res.ID)
	if info.State != jobs.StateScheduled || !info.ScheduledAt.Equal(at) || info.Queue != "mail" {
		t.Errorf("scheduled mail: %+v, want scheduled at %v on queue mail", info, at)
	}
	b.Drain(ctx, c)
	mailtest.Count(t, mem, 0) // not due

	first, err := q.Enqueue(ctx, valid(), &jobs.EnqueueOpts{UniqueKey: "welcome:42"})
	if err != nil || first.Duplicate {
		t.Fatalf("first unique mail: %+v %v", first, err)
	}
	again, err := q.Enqueue(ctx, valid(), &jobs.EnqueueOpts{UniqueKey: "welcome:42"})
	if err != nil || !again.Duplicate || again.ID != first.ID {
		t.Errorf("the same key again: %+v %v, want a duplicate of job %d", again, err, first.ID)
	}
	b.Count(t, 2)

	later := mail.NewQueued(mail.QueuedConfig{Client: c, Opts: jobs.EnqueueOpts{ScheduledAt: at}})
	res, err = later.Enqueue(ctx, valid(), &jobs.EnqueueOpts{Priority: 2})
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := b.Job(ctx, res.ID); info.State != jobs.StateScheduled || !info.ScheduledAt.Equal(at) || info.Priority != 2 {
		t.Errorf("QueuedConfig.Opts.ScheduledAt with Enqueue's Priority: %+v", info)
	}
}

// TestQueuedNilMessage: Send of a nil message is ErrInvalid, with or
// without a default From; a queued job without a message (written by
// hand, or by an older program) is discarded after one attempt, the
// deliverer never called.
func TestQueuedNilMessage(t *testing.T) {
	ctx := context.Background()
	mem := mailtest.New()
	b, c, q := newQueue(t, mem)
	qf := mail.NewQueued(mail.QueuedConfig{Client: c, From: "team@example.com"})
	for name, q := range map[string]*mail.Queued{"no From": q, "a default From": qf} {
		if err := q.Send(ctx, nil); !errors.Is(err, mail.ErrInvalid) {
			t.Errorf("%s: Send(nil) = %v, want ErrInvalid", name, err)
		}
	}
	b.Count(t, 0)
	res, err := c.Enqueue(ctx, mail.QueuedMail{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.RunAll(ctx, c)
	info, _ := b.Job(ctx, res.ID)
	if info.State != jobs.StateDiscarded || info.Attempt != 1 || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "carries no message") {
		t.Errorf("a job without a message: %+v, want discarded after one attempt", info)
	}
	mailtest.Count(t, mem, 0)
}

// TestHandleQueuedNilMailer: HandleQueued without a deliverer panics, and
// registers nothing.
func TestHandleQueuedNilMailer(t *testing.T) {
	c := jobstest.NewClient(t, jobstest.New())
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "Mailer") {
				t.Errorf("recovered %v, want a panic asking for a Mailer", r)
			}
		}()
		mail.HandleQueued(c, nil)
	}()
	if k := c.Kinds(); len(k) != 0 {
		t.Errorf("kinds registered: %v", k)
	}
}
