package cancelctx

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

func TestCancelEndsDoneAndErr(t *testing.T) {
	var c Ctx
	c.Reset(context.Background())
	if c.Err() != nil {
		t.Fatalf("Err before Cancel: %v", c.Err())
	}
	done := c.Done()
	select {
	case <-done:
		t.Fatal("Done closed before Cancel")
	default:
	}
	c.Cancel(context.Canceled)
	c.Cancel(context.DeadlineExceeded) // the first error stays
	<-done
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("Err %v, want context.Canceled", c.Err())
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed after Cancel")
	}
}

func TestParentCancellationReaches(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	var c Ctx
	c.Reset(parent)
	// Err follows the parent even when nobody asked for Done.
	cancel()
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("Err %v after the parent's cancel", c.Err())
	}
	var c2 Ctx
	p2, cancel2 := context.WithCancel(context.Background())
	c2.Reset(p2)
	done := c2.Done()
	cancel2()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's cancellation did not close Done")
	}
}

func TestValuesAndDeadlineAreTheParents(t *testing.T) {
	type key struct{}
	at := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(context.Background(), key{}, "v"), at)
	defer cancel()
	var c Ctx
	c.Reset(parent)
	if c.Value(key{}) != "v" {
		t.Errorf("Value %v", c.Value(key{}))
	}
	if d, ok := c.Deadline(); !ok || !d.Equal(at) {
		t.Errorf("Deadline %v %v", d, ok)
	}
	if c.Parent() != parent {
		t.Error("Parent is not the parent Reset gave")
	}
}

// A context derived from a Ctx is cancelled with it and starts no
// goroutine (AfterFunc is used, not a goroutine waiting on Done).
func TestDerivedContextsStartNoGoroutine(t *testing.T) {
	var c Ctx
	c.Reset(context.Background())
	before := runtime.NumGoroutine()
	var derived []context.Context
	for range 50 {
		d, cancel := context.WithTimeout(&c, time.Hour)
		defer cancel()
		derived = append(derived, d)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines after 50 derived contexts, %d before", n, before)
	}
	c.Cancel(context.Canceled)
	for _, d := range derived {
		select {
		case <-d.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("a derived context was not cancelled")
		}
	}
	// AfterFunc on a cancelled Ctx runs at once; stop reports false.
	ran := false
	stop := c.AfterFunc(func() { ran = true })
	if !ran || stop() {
		t.Errorf("AfterFunc after Cancel: ran %v, stop %v", ran, stop())
	}
}

func TestAfterFuncStop(t *testing.T) {
	var c Ctx
	c.Reset(context.Background())
	ran := false
	stop := c.AfterFunc(func() { ran = true })
	if !stop() || stop() {
		t.Error("stop: want true once, then false")
	}
	c.Cancel(context.Canceled)
	if ran {
		t.Error("a stopped callback ran")
	}
}

// A Ctx nobody waited on costs nothing to cancel: the engine makes one per
// request inside an object it allocates anyway.
func TestCancelWithoutWaitersAllocatesNothing(t *testing.T) {
	var c Ctx
	if n := testing.AllocsPerRun(100, func() {
		c.Reset(context.Background())
		_ = c.Err()
		c.Cancel(context.Canceled)
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
