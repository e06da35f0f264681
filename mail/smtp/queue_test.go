package smtpmail_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/mail"
	smtpmail "github.com/plinth-go/plinth/mail/smtp"
	"github.com/plinth-go/plinth/mail/smtp/smtptest"
)

// inline is a minimal jobs.Backend for these tests: Insert stores, drain
// runs every job until it finishes, retrying at once (no backoff).
type inline struct {
	mu   sync.Mutex
	jobs []*jobs.Info
	work jobs.Worker
}

func (b *inline) Insert(ctx context.Context, batch []jobs.Insert) ([]jobs.Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []jobs.Result
	for _, in := range batch {
		id := int64(len(b.jobs) + 1)
		b.jobs = append(b.jobs, &jobs.Info{ID: id, Kind: in.Kind, Queue: in.Queue, State: jobs.StateAvailable, MaxAttempts: in.MaxAttempts, Args: in.Args})
		out = append(out, jobs.Result{ID: id})
	}
	return out, nil
}

func (b *inline) Start(ctx context.Context, queues map[string]int, kinds []string, work jobs.Worker) error {
	b.work = work
	return nil
}
func (b *inline) Stop(soft, hard context.Context) error { return nil }
func (b *inline) Job(ctx context.Context, id int64) (jobs.Info, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id < 1 || int(id) > len(b.jobs) {
		return jobs.Info{}, jobs.ErrNotFound
	}
	return *b.jobs[id-1], nil
}
func (b *inline) List(ctx context.Context, p jobs.ListParams) ([]jobs.Info, error) { return nil, nil }
func (b *inline) Retry(ctx context.Context, id int64) (jobs.Info, error)           { return jobs.Info{}, nil }
func (b *inline) Cancel(ctx context.Context, id int64) (jobs.Info, error)          { return jobs.Info{}, nil }
func (b *inline) Ping(ctx context.Context) error                                   { return nil }

// drain runs every unfinished job to its end.
func (b *inline) drain(ctx context.Context, c *jobs.Client) {
	for {
		b.mu.Lock()
		var j *jobs.Info
		for _, x := range b.jobs {
			if x.State == jobs.StateAvailable || x.State == jobs.StateRetryable {
				j = x
				break
			}
		}
		b.mu.Unlock()
		if j == nil {
			return
		}
		j.Attempt++
		j.State = jobs.StateRunning
		err := c.Work(ctx, &jobs.Execution{ID: j.ID, Kind: j.Kind, Args: j.Args, Attempt: j.Attempt, MaxAttempts: j.MaxAttempts, Queue: j.Queue, Errors: j.Errors})
		if err != nil {
			j.Errors = append(j.Errors, jobs.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: err.Error()})
		}
		var ce *jobs.ControlError
		switch {
		case err == nil:
			j.State = jobs.StateCompleted
		case errors.As(err, &ce) && ce.Outcome == jobs.OutcomeDiscard:
			j.State = jobs.StateDiscarded
		case j.Attempt >= j.MaxAttempts:
			j.State = jobs.StateDiscarded
		default:
			j.State = jobs.StateRetryable
		}
	}
}

func queued(t *testing.T, s *smtptest.Server) (*inline, *jobs.Client, *mail.Queued) {
	t.Helper()
	m := newMailer(t, s, smtpmail.STARTTLS, "", "")
	b := &inline{}
	c := jobs.NewClient(b)
	mail.HandleQueued(c, m)
	return b, c, mail.NewQueued(c)
}

// TestQueued550Discards: an SMTP 550 at RCPT discards the job after one
// attempt, the server's reply recorded as the job's error.
func TestQueued550Discards(t *testing.T) {
	ctx := context.Background()
	s := smtptest.New(t, smtptest.Options{TLS: smtptest.STARTTLS})
	s.Script(smtptest.StageRcpt, "550 5.1.1 no such user")
	b, c, q := queued(t, s)
	res, err := q.Enqueue(ctx, message())
	if err != nil {
		t.Fatal(err)
	}
	b.drain(ctx, c)
	info, _ := b.Job(ctx, res.ID)
	if info.State != jobs.StateDiscarded || info.Attempt != 1 || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "550 5.1.1 no such user") {
		t.Fatalf("state %s attempt %d errors %v; want discarded after attempt 1 with the 550 recorded", info.State, info.Attempt, info.Errors)
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages caught", n)
	}
}

// TestQueued451TwiceThenDelivered: two 451 replies at the end of DATA, then
// acceptance: delivered on attempt 3, once, both errors recorded, the same
// Message-ID as enqueued.
func TestQueued451TwiceThenDelivered(t *testing.T) {
	ctx := context.Background()
	s := smtptest.New(t, smtptest.Options{TLS: smtptest.STARTTLS})
	s.Script(smtptest.StageData, "451 4.3.0 try again later", "451 4.3.0 try again later")
	b, c, q := queued(t, s)
	res, err := q.Enqueue(ctx, message())
	if err != nil {
		t.Fatal(err)
	}
	b.drain(ctx, c)
	info, _ := b.Job(ctx, res.ID)
	if info.State != jobs.StateCompleted || info.Attempt != 3 || len(info.Errors) != 2 {
		t.Fatalf("state %s attempt %d errors %v; want completed on attempt 3", info.State, info.Attempt, info.Errors)
	}
	for _, e := range info.Errors {
		if !strings.Contains(e.Error, "451 4.3.0") {
			t.Errorf("recorded error %q lacks the reply", e.Error)
		}
	}
	msgs := s.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages caught, want 1", len(msgs))
	}
	checkDelivered(t, s, true, "")
}

// TestQueuedBadInput: CR/LF in a header, an empty To, no text: Send fails,
// no job, nothing reaches the catcher.
func TestQueuedBadInput(t *testing.T) {
	ctx := context.Background()
	s := smtptest.New(t, smtptest.Options{TLS: smtptest.STARTTLS})
	b, c, q := queued(t, s)
	for name, modify := range map[string]func(*mail.Message){
		"CRLF in Subject": func(m *mail.Message) { m.Subject = "a\r\nBcc: x@example.com" },
		"empty To":        func(m *mail.Message) { m.To = nil },
		"no text":         func(m *mail.Message) { m.Text = "" },
	} {
		m := message()
		modify(m)
		if err := q.Send(ctx, m); !errors.Is(err, mail.ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	b.drain(ctx, c)
	if len(b.jobs) != 0 || s.Connections() != 0 {
		t.Fatalf("%d jobs, %d connections", len(b.jobs), s.Connections())
	}
}
