package mail_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

// scripted fails the first len(errs) sends with errs, in order, then
// records in mem.
type scripted struct {
	mu   sync.Mutex
	errs []error
	mem  *mail.Memory
}

func (s *scripted) Send(ctx context.Context, m *mail.Message) error {
	s.mu.Lock()
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	return s.mem.Send(ctx, m)
}

func newQueue(t *testing.T, deliverer mail.Mailer) (*jobstest.Backend, *jobs.Client, *mail.Queued) {
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	mail.HandleQueued(c, deliverer)
	return b, c, mail.NewQueued(mail.QueuedConfig{Client: c})
}

// TestQueuedDelivers: Send enqueues the rendered message (Date and
// Message-ID fixed at enqueue), the worker delivers it once; two transient
// failures then success deliver on attempt 3 with both errors recorded.
func TestQueuedDelivers(t *testing.T) {
	ctx := context.Background()
	mem := mailtest.New()
	d := &scripted{mem: mem, errs: []error{errors.New("451 4.3.0 try later"), errors.New("dial tcp: connection refused")}}
	b, c, q := newQueue(t, d)
	m := valid()
	m.HTML = "<p>Hi</p>"
	res, err := q.Enqueue(ctx, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.MessageID != "" || !m.Date.IsZero() {
		t.Fatal("Enqueue changed the caller's message")
	}
	info, _ := b.Job(ctx, res.ID)
	if info.Kind != mail.QueuedKind || info.MaxAttempts != mail.DefaultQueuedMaxAttempts {
		t.Fatalf("job %+v", info)
	}
	var args mail.QueuedMail
	if err := json.Unmarshal(info.Args, &args); err != nil || args.Message.MessageID == "" || args.Message.Date.IsZero() || args.Message.HTML != "<p>Hi</p>" {
		t.Fatalf("job arguments %s (%v)", info.Args, err)
	}
	mailtest.Count(t, mem, 0) // nothing is sent before the worker runs
	b.RunAll(ctx, c)
	info, _ = b.Job(ctx, res.ID)
	if info.State != jobs.StateCompleted || info.Attempt != 3 || len(info.Errors) != 2 {
		t.Fatalf("state %s attempt %d errors %v, want completed on attempt 3 with 2 errors", info.State, info.Attempt, info.Errors)
	}
	sent := mailtest.Count(t, mem, 1)[0]
	if sent.MessageID != args.Message.MessageID || !sent.Date.Equal(args.Message.Date) {
		t.Errorf("sent Message-ID %s date %v, want the enqueued %s %v", sent.MessageID, sent.Date, args.Message.MessageID, args.Message.Date)
	}
}

// TestQueuedPermanentDiscards: a permanent failure discards the job after
// one attempt, the error recorded.
func TestQueuedPermanentDiscards(t *testing.T) {
	ctx := context.Background()
	mem := mailtest.New()
	d := &scripted{mem: mem, errs: []error{mail.Permanent(errors.New("550 5.1.1 no such user"))}}
	b, c, q := newQueue(t, d)
	res, err := q.Enqueue(ctx, valid(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.RunAll(ctx, c)
	info, _ := b.Job(ctx, res.ID)
	if info.State != jobs.StateDiscarded || info.Attempt != 1 || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "550 5.1.1 no such user") {
		t.Fatalf("state %s attempt %d errors %v, want discarded after 1 attempt with the 550 recorded", info.State, info.Attempt, info.Errors)
	}
	mailtest.Count(t, mem, 0)
}

// TestQueuedRefusesBadInput: invalid messages and oversize ones fail at
// Send and enqueue nothing; an unregistered kind fails too.
func TestQueuedRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	b, _, q := newQueue(t, mailtest.New())
	for name, m := range map[string]*mail.Message{
		"CRLF in Subject": func() *mail.Message { m := valid(); m.Subject = "x\r\nBcc: y@example.com"; return m }(),
		"empty To":        func() *mail.Message { m := valid(); m.To = nil; return m }(),
		"no text":         func() *mail.Message { m := valid(); m.Text = ""; return m }(),
	} {
		if err := q.Send(ctx, m); !errors.Is(err, mail.ErrInvalid) {
			t.Errorf("%s: Send = %v, want ErrInvalid", name, err)
		}
	}
	big := valid()
	big.Attachments = []mail.Attachment{{Filename: "big.bin", Data: make([]byte, jobs.MaxArgsBytes)}}
	if err := q.Send(ctx, big); !errors.Is(err, jobs.ErrTooLarge) {
		t.Errorf("oversize: Send = %v, want jobs.ErrTooLarge", err)
	}
	b.Count(t, 0)
	unregistered := mail.NewQueued(mail.QueuedConfig{Client: jobstest.NewClient(t, jobstest.New())})
	if err := unregistered.Send(ctx, valid()); !errors.Is(err, jobs.ErrUnknownKind) {
		t.Errorf("without HandleQueued: %v, want jobs.ErrUnknownKind", err)
	}
}

// TestQueuedOptions: QueuedConfig.Opts apply to every job, Enqueue's opts
// override them field by field, and MaxAttempts defaults to
// DefaultQueuedMaxAttempts.
func TestQueuedOptions(t *testing.T) {
	ctx := context.Background()
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	mail.HandleQueued(c, mailtest.New())
	q := mail.NewQueued(mail.QueuedConfig{Client: c, Opts: jobs.EnqueueOpts{MaxAttempts: 3, Queue: "mail"}})
	res, err := q.Enqueue(ctx, valid(), &jobs.EnqueueOpts{Priority: 2})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := b.Job(ctx, res.ID)
	if info.MaxAttempts != 3 || info.Queue != "mail" || info.Priority != 2 {
		t.Fatalf("job %+v, want max attempts 3, queue mail, priority 2", info)
	}
	res, err = q.Enqueue(ctx, valid(), &jobs.EnqueueOpts{MaxAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	if info, _ = b.Job(ctx, res.ID); info.MaxAttempts != 5 || info.Queue != "mail" || info.Priority != jobs.DefaultPriority {
		t.Fatalf("job %+v, want max attempts 5, queue mail, the default priority", info)
	}
	d := mail.NewQueued(mail.QueuedConfig{Client: c})
	if res, err = d.Enqueue(ctx, valid(), nil); err != nil {
		t.Fatal(err)
	}
	if info, _ = b.Job(ctx, res.ID); info.MaxAttempts != mail.DefaultQueuedMaxAttempts || info.Queue != jobs.DefaultQueue {
		t.Fatalf("job %+v, want the defaults", info)
	}
}

// TestNewQueuedNilClient: a nil Client panics, naming the field.
func TestNewQueuedNilClient(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "QueuedConfig.Client") {
			t.Fatalf("recovered %v, want a panic naming QueuedConfig.Client", r)
		}
	}()
	mail.NewQueued(mail.QueuedConfig{})
}

// TestQueuedInTransaction: a mail sent in a transaction that rolls back is
// never enqueued nor sent; one whose transaction commits is sent once.
func TestQueuedInTransaction(t *testing.T) {
	ctx := context.Background()
	mem := mailtest.New()
	b, c, q := newQueue(t, mem)
	txCtx, tx := b.Begin(ctx)
	res, err := q.Enqueue(txCtx, valid(), nil)
	if err != nil || !res.InTx {
		t.Fatalf("Enqueue in a transaction: %+v, %v", res, err)
	}
	tx.Rollback()
	b.RunAll(ctx, c)
	b.Count(t, 0)
	mailtest.Count(t, mem, 0)

	txCtx, tx = b.Begin(ctx)
	if err := q.Send(txCtx, valid()); err != nil {
		t.Fatal(err)
	}
	b.RunAll(ctx, c)
	mailtest.Count(t, mem, 0) // not before the commit
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	b.RunAll(ctx, c)
	mailtest.Count(t, mem, 1)
}

// TestQueuedBackoff: a transient failure is retried after the queue's
// backoff, not at once.
func TestQueuedBackoff(t *testing.T) {
	ctx := context.Background()
	mem := mailtest.New()
	d := &scripted{mem: mem, errs: []error{errors.New("451 4.3.0 try later")}}
	b, c, q := newQueue(t, d)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.SetClock(func() time.Time { return now })
	res, err := q.Enqueue(ctx, valid(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Drain(ctx, c)
	info, _ := b.Job(ctx, res.ID)
	if info.State != jobs.StateRetryable || info.Attempt != 1 {
		t.Fatalf("after the 451: %s attempt %d, want retryable after attempt 1", info.State, info.Attempt)
	}
	b.Drain(ctx, c) // nothing is due yet
	if info, _ = b.Job(ctx, res.ID); info.Attempt != 1 {
		t.Fatalf("retried at once (attempt %d)", info.Attempt)
	}
	now = now.Add(jobstest.Backoff(1))
	b.Drain(ctx, c)
	if info, _ = b.Job(ctx, res.ID); info.State != jobs.StateCompleted || info.Attempt != 2 {
		t.Fatalf("after the backoff: %s attempt %d", info.State, info.Attempt)
	}
	mailtest.Count(t, mem, 1)
}

// TestQueuedDefaultFrom: QueuedConfig.From fills a missing sender before the
// check, on a copy; a message with its own From keeps it.
func TestQueuedDefaultFrom(t *testing.T) {
	ctx := context.Background()
	mem := mailtest.New()
	b, c, q := newQueue(t, mem)
	m := valid()
	m.From = ""
	if err := q.Send(ctx, m); !errors.Is(err, mail.ErrInvalid) {
		t.Fatalf("without a default From: %v", err)
	}
	qf := mail.NewQueued(mail.QueuedConfig{Client: c, From: "Team <team@example.com>"})
	if err := qf.Send(ctx, m); err != nil {
		t.Fatal(err)
	}
	if m.From != "" {
		t.Fatal("the caller's message was changed")
	}
	if err := qf.Send(ctx, valid()); err != nil {
		t.Fatal(err)
	}
	b.RunAll(ctx, c)
	sent := mailtest.Count(t, mem, 2)
	if sent[0].From != "Team <team@example.com>" || sent[1].From != valid().From {
		t.Fatalf("From %q, %q", sent[0].From, sent[1].From)
	}
}
