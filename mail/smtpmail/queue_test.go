package smtpmail_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/smtpmail"
	"github.com/plinth-go/plinth/mail/smtpmail/smtptest"
)

func queued(t *testing.T, s *smtptest.Server) (*jobstest.Backend, *jobs.Client, *mail.Queued) {
	t.Helper()
	m := newMailer(t, s, smtpmail.STARTTLS, "", "")
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	mail.HandleQueued(c, m)
	return b, c, mail.NewQueued(mail.QueuedConfig{Client: c})
}

// TestQueued550Discards: an SMTP 550 at RCPT discards the job after one
// attempt, the server's reply recorded as the job's error.
func TestQueued550Discards(t *testing.T) {
	ctx := context.Background()
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.STARTTLS})
	s.Script(smtptest.StageRcpt, "550 5.1.1 no such user")
	b, c, q := queued(t, s)
	res, err := q.Enqueue(ctx, message(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.RunAll(ctx, c)
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
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.STARTTLS})
	s.Script(smtptest.StageData, "451 4.3.0 try again later", "451 4.3.0 try again later")
	b, c, q := queued(t, s)
	res, err := q.Enqueue(ctx, message(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.RunAll(ctx, c)
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
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.STARTTLS})
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
	b.RunAll(ctx, c)
	b.Count(t, 0)
	if s.Connections() != 0 {
		t.Fatalf("%d connections", s.Connections())
	}
}
