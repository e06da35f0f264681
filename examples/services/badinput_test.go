package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/jobs"
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
	c := jobs.NewClient(refusingBackend{t: t})
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
		_, err := c.Enqueue(ctx, tc.args)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Enqueue = %v, want %v", tc.name, err, tc.want)
		}
	}
}
