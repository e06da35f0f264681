package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/smtpmail"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/redisstore"
)

// refusingBackend fails the test when a job reaches it: the bad inputs
// below must be refused by Enqueue, before the backend, never at work time.
type refusingBackend struct {
	jobs.Backend
	t *testing.T
}

func (b refusingBackend) Insert(_ context.Context, batch []jobs.Insert) ([]jobs.Result, error) {
	b.t.Errorf("a bad job reached the backend: %+v", batch)
	return nil, errors.New("refusingBackend")
}

// unregistered is a kind that no worker handles.
type unregistered struct{}

func (unregistered) Kind() string { return "unregistered" }

// unencodable does not encode as JSON.
type unencodable struct {
	C chan int `json:"c"`
}

func (unencodable) Kind() string { return "unencodable" }

// "Job arguments that do not encode, over 1 MiB, or of an unregistered kind
// → an error from Enqueue, never at work time", on the example's own kinds.
func TestCheckEnqueueRefuses(t *testing.T) {
	c := jobstest.NewClient(t, refusingBackend{t: t})
	registerWorkers(c, nil)
	jobs.Handle(c, func(context.Context, *jobs.Job[unencodable]) error { return nil })
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		args jobs.Args
		want error
	}{
		{"unregistered kind", unregistered{}, jobs.ErrUnknownKind},
		{"does not encode", unencodable{C: make(chan int)}, jobs.ErrEncode},
		{"over 1 MiB", sleepJob{MS: 1, Tag: strings.Repeat("x", jobs.MaxArgsBytes)}, jobs.ErrTooLarge},
	} {
		_, err := c.Enqueue(ctx, tc.args, nil)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Enqueue = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// "CR/LF in any mail header, an empty To, no text part → an error from
// Send, nothing sent", on the mail core the example sends with; and the
// welcome mail as rendered: the name escaped in the HTML part only.
func TestCheckMailRefuses(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		mem := &mail.Memory{}
		checkMailRefuses(t, mem, func() int { return len(mem.Sent()) })
	})
	t.Run("smtp", func(t *testing.T) {
		c := newCatcher(t)
		u, err := url.Parse(c.url())
		if err != nil {
			t.Fatal(err)
		}
		m, err := smtpmail.Open(u)
		if err != nil {
			t.Fatal(err)
		}
		checkMailRefuses(t, m, func() int { return len(c.caught()) })
		if n := c.srv.Connections(); n != 1 {
			t.Errorf("the SMTP server saw %d connections, want 1 (the good message's): a refused message must not reach it", n)
		}
	})
}

func checkMailRefuses(t *testing.T, mailer mail.Mailer, sent func() int) {
	ctx := context.Background()
	good := func() *mail.Message {
		return &mail.Message{From: defaultFrom, To: []string{"a@example.com"}, Subject: "Hi", Text: "hello"}
	}
	for _, tc := range []struct {
		name string
		edit func(m *mail.Message)
	}{
		{"CRLF in the subject", func(m *mail.Message) { m.Subject = "Hi\r\nBcc: victim@example.com" }},
		{"LF in the subject", func(m *mail.Message) { m.Subject = "Hi\nBcc: victim@example.com" }},
		{"CRLF in To", func(m *mail.Message) { m.To = []string{"a@example.com\r\nBcc: victim@example.com"} }},
		{"CRLF in From", func(m *mail.Message) { m.From = "x@example.com\r\nBcc: victim@example.com" }},
		{"CRLF in Reply-To", func(m *mail.Message) { m.ReplyTo = "x@example.com\r\nBcc: victim@example.com" }},
		{"CRLF in a header", func(m *mail.Message) { m.Headers = map[string]string{"X-Note": "a\r\nBcc: victim@example.com"} }},
		{"empty To", func(m *mail.Message) { m.To = nil }},
		{"no text part", func(m *mail.Message) { m.Text = ""; m.HTML = "<p>only HTML</p>" }},
	} {
		m := good()
		tc.edit(m)
		if err := mailer.Send(ctx, m); err == nil {
			t.Errorf("%s: Send = nil, want an error", tc.name)
		}
	}
	if n := sent(); n != 0 {
		t.Errorf("%d messages sent from bad input", n)
	}
	if err := mailer.Send(ctx, good()); err != nil || sent() != 1 {
		t.Fatalf("a good message: %v, %d sent", err, sent())
	}
}

// "A cache key over 1 KiB or with control characters → an error", on the
// stores the example opens (memory, and Redis with PLINTH_TEST_REDIS); the
// computation does not run.
func TestCheckCacheKeyRefused(t *testing.T) {
	urls := []string{"memory:"}
	if u := os.Getenv("PLINTH_TEST_REDIS"); u != "" {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		urls = append(urls, u+sep+"prefix=plinth-services-check-keys:")
	} else {
		plinthtest.Without(t, "redis", "Redis not checked: set PLINTH_TEST_REDIS (redis://127.0.0.1:6379/0)")
	}
	for _, u := range urls {
		t.Run(strings.SplitN(u, ":", 2)[0], func(t *testing.T) {
			store, err := cache.Open(cache.OpenConfig{URL: u, Openers: redisstore.CacheOpeners()})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			checkKeysRefused(t, store)
		})
	}
}

func checkKeysRefused(t *testing.T, store cache.Store) {
	r := newReports(store)
	for _, k := range []string{strings.Repeat("k", cache.MaxKeyLen+1), "a\nb", "a\rb", "a\x00b", "a\x7fb"} {
		_, _, _, err := r.get(context.Background(), k)
		var p *plinth.Problem
		if !errors.As(err, &p) || p.Status != 400 {
			t.Errorf("report key %.20q (%d bytes): %v, want a 400 problem", k, len(k), err)
		}
		if err := store.Set(context.Background(), k, []byte("v"), 0); !errors.Is(err, cache.ErrBadKey) {
			t.Errorf("Set of key %.20q (%d bytes): %v, want cache.ErrBadKey", k, len(k), err)
		}
	}
	if _, computed, _, err := r.get(context.Background(), fmt.Sprintf("fine-%d", time.Now().UnixNano())); err != nil || !computed {
		t.Errorf("a good key: computed %v, %v", computed, err)
	}
}
