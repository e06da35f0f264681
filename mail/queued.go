package mail

import (
	"context"
	"fmt"
	"time"

	"github.com/plinth-go/plinth/jobs"
)

// QueuedKind is the job kind of a queued message.
const QueuedKind = "plinth.mail"

// DefaultQueuedMaxAttempts is a queued message's attempt limit when
// neither QueuedConfig.Opts nor Enqueue's opts set MaxAttempts: a mail that
// could not be handed to the server in 10 tries (hours apart by the end,
// with the backend's exponential backoff) is discarded with its errors
// recorded, rather than arriving weeks late as the jobs default of 25
// attempts would allow.
const DefaultQueuedMaxAttempts = 10

// QueuedMail is the job a Queued mailer enqueues: the message as rendered
// (subject, text, HTML, attachments), not the template's name and data.
// The worker then needs no templates, translations or application data,
// so it can run in another process or another version of the program, and
// every attempt sends the same bytes. Its JSON form is bounded by
// jobs.MaxArgsBytes (1 MiB, attachments base64-encoded included): a larger
// message fails at Send with jobs.ErrTooLarge.
type QueuedMail struct {
	Message *Message `json:"message"`
}

// Kind returns QueuedKind.
func (QueuedMail) Kind() string { return QueuedKind }

// Queued is a Mailer that sends through the job queue: Send validates the
// message, fixes its Date and Message-ID (so that a retried delivery sends
// the same Message-ID) and enqueues a QueuedMail job; the worker
// registered with HandleQueued delivers it. Enqueue joins the transaction
// ctx carries (jobs.Client.Enqueue): a mail sent inside a data-layer
// transaction is delivered if and only if the transaction commits.
// Delivery is at least once: a worker killed after the server accepted the
// message but before the job was marked done sends it again.
type Queued struct {
	client *jobs.Client
	opts   jobs.EnqueueOpts
	from   string
}

// QueuedConfig configures NewQueued. Client is required; the zero value of
// the other fields means their defaults.
type QueuedConfig struct {
	// Client is the queue the messages are enqueued on. Required: NewQueued
	// panics when it is nil. The kind must be registered on it with
	// HandleQueued, in every role, or Send fails with jobs.ErrUnknownKind.
	Client *jobs.Client
	// Opts are the options of every message's job; Enqueue's opts override
	// them field by field. Default: the jobs defaults, except MaxAttempts,
	// DefaultQueuedMaxAttempts (10).
	Opts jobs.EnqueueOpts
	// From, when set, is the From of a message without one (set on a copy
	// of the message) before it is checked: the sender a deployment gives
	// in PLINTH_MAIL_FROM (Config.From) applies to the queue too. Default
	// none: a message without From fails Send.
	From string
}

// NewQueued returns a Queued mailer enqueueing on cfg.Client with cfg.Opts.
// It panics when cfg.Client is nil.
func NewQueued(cfg QueuedConfig) *Queued {
	if cfg.Client == nil {
		panic("mail: NewQueued: QueuedConfig.Client is nil")
	}
	if cfg.Opts.MaxAttempts == 0 {
		cfg.Opts.MaxAttempts = DefaultQueuedMaxAttempts
	}
	return &Queued{client: cfg.Client, opts: cfg.Opts, from: cfg.From}
}

// Send enqueues m (see Enqueue).
func (q *Queued) Send(ctx context.Context, m *Message) error {
	_, err := q.Enqueue(ctx, m, nil)
	return err
}

// Enqueue validates m and enqueues it, returning the job's Result (its ID;
// InTx when it joined the context's transaction). An invalid message is an
// error wrapping ErrInvalid and enqueues nothing; so is a message whose
// job would exceed jobs.MaxArgsBytes (jobs.ErrTooLarge). m is not changed.
// The job's options are QueuedConfig.Opts with the fields opts sets (its
// non-zero ones) over them; nil: QueuedConfig.Opts as they are.
func (q *Queued) Enqueue(ctx context.Context, m *Message, opts *jobs.EnqueueOpts) (jobs.Result, error) {
	if m != nil && m.From == "" && q.from != "" {
		c := *m
		c.From = q.from
		m = &c
	}
	p, err := m.check()
	if err != nil {
		return jobs.Result{}, err
	}
	c := *m
	if c.Date.IsZero() {
		c.Date = time.Now().Truncate(time.Second)
	}
	if c.MessageID == "" {
		c.MessageID = NewMessageID(p.from.Address)
	}
	o := q.opts
	if opts != nil {
		o = merge(o, *opts)
	}
	res, err := q.client.Enqueue(ctx, QueuedMail{Message: &c}, &o)
	if err != nil {
		return jobs.Result{}, fmt.Errorf("mail: enqueueing: %w", err)
	}
	return res, nil
}

// merge returns base with the non-zero fields of over over it.
func merge(base, over jobs.EnqueueOpts) jobs.EnqueueOpts {
	if over.Queue != "" {
		base.Queue = over.Queue
	}
	if !over.ScheduledAt.IsZero() {
		base.ScheduledAt = over.ScheduledAt
	}
	if over.MaxAttempts != 0 {
		base.MaxAttempts = over.MaxAttempts
	}
	if over.Priority != 0 {
		base.Priority = over.Priority
	}
	if over.UniqueKey != "" {
		base.UniqueKey = over.UniqueKey
	}
	return base
}

// HandleQueued registers the worker of queued messages on client: it
// sends each message through deliverer (smtpmail.Mailer, or any Mailer).
// A permanent failure (IsPermanent: an SMTP 5xx reply, an invalid message)
// ends the job with jobs.Discard, state discarded after that attempt and
// the error recorded; any other error (a 4xx reply, a network error) is
// returned as is, so the job is retried with the queue's backoff until
// its attempts run out. Call it in every role, before the App starts: a
// web-only process needs the kind registered to enqueue it, and never
// calls deliverer. It panics if the kind is already registered.
func HandleQueued(client *jobs.Client, deliverer Mailer) {
	if deliverer == nil {
		panic("mail: HandleQueued needs a Mailer to deliver with")
	}
	jobs.Handle(client, func(ctx context.Context, job *jobs.Job[QueuedMail]) error {
		if job.Args.Message == nil {
			return jobs.Discard(fmt.Errorf("%w: queued job %d carries no message", ErrInvalid, job.ID))
		}
		err := deliverer.Send(ctx, job.Args.Message)
		if err == nil {
			return nil
		}
		if IsPermanent(err) {
			return jobs.Discard(err)
		}
		return err
	})
}
