package mail_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
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

func newQueue(t *testing.T, deliverer mail.Mailer) (*inline, *jobs.Client, *mail.Queued) {
	b := &inline{}
	c := jobs.NewClient(b)
	mail.HandleQueued(c, deliverer)
	return b, c, mail.NewQueued(c)
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
	res, err := q.Enqueue(ctx, m)
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
	b.drain(ctx, c)
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
	res, err := q.Enqueue(ctx, valid())
	if err != nil {
		t.Fatal(err)
	}
	b.drain(ctx, c)
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
	if len(b.jobs) != 0 {
		t.Fatalf("%d jobs enqueued, want 0", len(b.jobs))
	}
	unregistered := mail.NewQueued(jobs.NewClient(&inline{}))
	if err := unregistered.Send(ctx, valid()); !errors.Is(err, jobs.ErrUnknownKind) {
		t.Errorf("without HandleQueued: %v, want jobs.ErrUnknownKind", err)
	}
}

// TestQueuedOptions: options given to NewQueued and to Enqueue apply.
func TestQueuedOptions(t *testing.T) {
	ctx := context.Background()
	b := &inline{}
	c := jobs.NewClient(b)
	mail.HandleQueued(c, mailtest.New())
	q := mail.NewQueued(c, jobs.MaxAttempts(3), jobs.Queue("mail"))
	res, err := q.Enqueue(ctx, valid(), jobs.Priority(2))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := b.Job(ctx, res.ID)
	if info.MaxAttempts != 3 || info.Queue != "mail" {
		t.Fatalf("job %+v", info)
	}
}
