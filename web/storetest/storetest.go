// Package storetest is the conformance suite of web.Store: Run checks that a
// store keeps the contract web.Store documents, so that every store (the
// memory store in package web, redisstore.SessionStore, data/pgstore, or an
// application's own) is held to the same behaviour by the same tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) web.Store {
//			return mystore.New(...) // a fresh, empty store, closed by t.Cleanup
//		})
//	}
//
// It uses the standard library and testing only, so that it sits in the core
// module and any store's module can run it. It makes no assertion on time
// beyond an expiry a second or two ahead, checked by polling with a generous
// bound, so that it passes on a loaded machine and under -race.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth/web"
)

// Bounds of the suite. They are deadlines for a broken store, not
// performance assertions: a working store meets them by orders of magnitude.
const (
	// ExpiryAhead is how far ahead the expiry subtest sets its expiry: far
	// enough that the Load right after Create sees the data, near enough
	// that the suite stays fast.
	ExpiryAhead = 1500 * time.Millisecond

	// ExpiryGrace is how long after ExpiryAhead the expiry subtest polls
	// before it declares that the data outlived its expiry. Stores that
	// expire lazily on read (Redis, the memory store) or by comparing the
	// expiry in the query (PostgreSQL) answer nil at once; the grace covers
	// a loaded machine and clocks a little apart (the application's and the
	// store's).
	ExpiryGrace = 10 * time.Second

	// CallBound is how long the cancelled-context subtest waits for a call
	// made with a cancelled context before it declares the store hung.
	CallBound = 10 * time.Second
)

// Run runs the conformance subtests on stores made by newStore. Each subtest
// calls newStore once, from a parallel subtest (t.Parallel), and wants a
// store that is safe for concurrent use; the store need not be empty, since
// every subtest uses IDs of its own, random ones of the shape the sessions
// give (43 characters of base64url), but newStore should give an isolated
// store (a key prefix or a table of its own) so that parallel test runs do
// not meet, and release it with t.Cleanup.
//
// The subtests:
//
//   - RoundTrip: Load returns what Create saved, and Create and Update keep
//     a copy (the caller may reuse its buffer right after they return).
//     Loaded slices are treated as read-only: a store may return its own
//     copy.
//   - Overwrite: Update replaces the data (a shorter value leaves no
//     trailing bytes) and the expiry, and reports true.
//   - CreateExisting: Create over an ID that holds a session fails and
//     leaves the session as it was.
//   - Missing: Load of an ID never saved returns nil data and a nil error;
//     Update of it reports false and creates nothing.
//   - Delete: a deleted ID loads as nil, nil; deleting it again, or deleting
//     an ID never saved, returns nil.
//   - NoResurrection: Update after Delete reports false and the ID stays
//     gone (a request in flight with a copy of a cookie does not undo a
//     sign-out); so does Update after the expiry.
//   - UpdateDeleteRace: Updates racing a Delete of the same ID, from 8
//     goroutines, 50 times: once all have returned, the ID is gone.
//   - Expiry: data saved with an expiry ExpiryAhead ahead loads until then
//     (checked only while the clock is clearly before it) and loads as nil
//     once past it (polled for up to ExpiryGrace), and an Update then
//     reports false; an expiry in the past, for a new ID or over an
//     existing one, is never loadable.
//   - Isolation: 64 IDs, some prefixes of others, each load their own data;
//     deleting one leaves the others.
//   - Binary: every byte value, zero bytes and invalid UTF-8 survive.
//   - Large: 64 KiB of random data survive.
//   - Concurrent: 16 goroutines Create, Update, Load and Delete their own
//     IDs (each Load sees its goroutine's last write) and four shared ones
//     (each Load sees nil or one whole value some goroutine wrote, never a
//     mix); run it with -race.
//   - CancelledContext: with a context already cancelled, and one whose
//     deadline has passed, each method returns within CallBound, and either
//     honours the context (an error that errors.Is the context's error:
//     context.Canceled or context.DeadlineExceeded, so that a caller can
//     tell a client that went away from a store that is down) or ignores it
//     and does its work (a nil error from Create, Update, Load or Delete means the
//     work was done, checked with a live context). Which one happened is
//     logged, not asserted: a network store honours the context, a memory
//     store may not look at it.
//   - Ping: Ping of a reachable store returns nil.
func Run(t *testing.T, newStore func(t *testing.T) web.Store) {
	t.Helper()
	for _, st := range []struct {
		name string
		run  func(t *testing.T, s web.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"Overwrite", testOverwrite},
		{"CreateExisting", testCreateExisting},
		{"Missing", testMissing},
		{"Delete", testDelete},
		{"NoResurrection", testNoResurrection},
		{"UpdateDeleteRace", testUpdateDeleteRace},
		{"Expiry", testExpiry},
		{"PastExpiry", testPastExpiry},
		{"Isolation", testIsolation},
		{"Binary", testBinary},
		{"Large", testLarge},
		{"Concurrent", testConcurrent},
		{"CancelledContext", testCancelledContext},
		{"Ping", testPing},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			if s == nil {
				t.Fatal("newStore returned nil")
			}
			st.run(t, s)
		})
	}
}

// hour is the expiry of data that must not expire during a subtest.
const hour = time.Hour

// NewID returns a random session ID of the shape the sessions give: 32
// random bytes in unpadded base64url, 43 characters.
func NewID() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// mustSave creates id, a new ID.
func mustSave(t *testing.T, s web.Store, id string, data []byte, expiry time.Time) {
	t.Helper()
	if err := s.Create(t.Context(), id, data, expiry); err != nil {
		t.Fatalf("Create(%s, %d bytes): %v", id, len(data), err)
	}
}

// mustUpdate updates id and checks that Update reports want.
func mustUpdate(t *testing.T, s web.Store, id string, data []byte, expiry time.Time, want bool) {
	t.Helper()
	ok, err := s.Update(t.Context(), id, data, expiry)
	if err != nil {
		t.Fatalf("Update(%s, %d bytes): %v", id, len(data), err)
	}
	if ok != want {
		t.Errorf("Update(%s) reported %v, want %v", id, ok, want)
	}
}

func mustLoad(t *testing.T, s web.Store, id string) []byte {
	t.Helper()
	data, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("Load(%s): %v", id, err)
	}
	return data
}

func mustDelete(t *testing.T, s web.Store, id string) {
	t.Helper()
	if err := s.Delete(t.Context(), id); err != nil {
		t.Fatalf("Delete(%s): %v", id, err)
	}
}

// wantData checks that id loads as want.
func wantData(t *testing.T, s web.Store, id string, want []byte) {
	t.Helper()
	got := mustLoad(t, s, id)
	if !bytes.Equal(got, want) {
		t.Errorf("Load(%s) = %s, want %s", id, show(got), show(want))
	}
}

// wantNone checks that id loads as nil data and a nil error.
func wantNone(t *testing.T, s web.Store, id string) {
	t.Helper()
	if got := mustLoad(t, s, id); got != nil {
		t.Errorf("Load(%s) = %s, want nil", id, show(got))
	}
}

// show describes data for a failure message without printing 64 KiB.
func show(b []byte) string {
	if b == nil {
		return "nil"
	}
	if len(b) <= 32 {
		return fmt.Sprintf("%q (%d bytes)", b, len(b))
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:32], len(b))
}

func testRoundTrip(t *testing.T, s web.Store) {
	id := NewID()
	data := []byte("session data: user=42")
	want := bytes.Clone(data)
	mustSave(t, s, id, data, time.Now().Add(hour))
	// The sessions encode into a reused buffer: Create must not keep it.
	for i := range data {
		data[i] = 'X'
	}
	wantData(t, s, id, want)
	wantData(t, s, id, want) // a Load does not consume the data

	// Nor must Update.
	data = []byte("session data: user=43")
	want = bytes.Clone(data)
	mustUpdate(t, s, id, data, time.Now().Add(hour), true)
	for i := range data {
		data[i] = 'Y'
	}
	wantData(t, s, id, want)
}

func testOverwrite(t *testing.T, s web.Store) {
	id := NewID()
	mustSave(t, s, id, []byte("a longer first value"), time.Now().Add(hour))
	mustUpdate(t, s, id, []byte("short"), time.Now().Add(hour), true)
	wantData(t, s, id, []byte("short"))

	// The Update's expiry replaces the Create's: a long-lived value
	// updated with a past expiry is gone, and stays gone.
	mustUpdate(t, s, id, []byte("third"), time.Now().Add(-time.Minute), true)
	wantNone(t, s, id)
	mustUpdate(t, s, id, []byte("fourth"), time.Now().Add(hour), false)
	wantNone(t, s, id)
}

func testCreateExisting(t *testing.T, s web.Store) {
	id := NewID()
	mustSave(t, s, id, []byte("first"), time.Now().Add(hour))
	if err := s.Create(t.Context(), id, []byte("second"), time.Now().Add(hour)); err == nil {
		t.Errorf("Create over an existing session returned nil, want an error")
	}
	wantData(t, s, id, []byte("first"))
}

func testMissing(t *testing.T, s web.Store) {
	id := NewID()
	wantNone(t, s, id)
	mustUpdate(t, s, id, []byte("never created"), time.Now().Add(hour), false)
	wantNone(t, s, id)
}

func testDelete(t *testing.T, s web.Store) {
	id := NewID()
	mustSave(t, s, id, []byte("to be deleted"), time.Now().Add(hour))
	mustDelete(t, s, id)
	wantNone(t, s, id)
	mustDelete(t, s, id) // already deleted
	mustDelete(t, s, NewID())
}

func testNoResurrection(t *testing.T, s web.Store) {
	id := NewID()
	mustSave(t, s, id, []byte("signed in"), time.Now().Add(hour))
	mustUpdate(t, s, id, []byte("still signed in"), time.Now().Add(hour), true)
	mustDelete(t, s, id) // sign-out
	// A request that loaded the session before the sign-out saves it.
	mustUpdate(t, s, id, []byte("signed in again?"), time.Now().Add(hour), false)
	wantNone(t, s, id)
	mustUpdate(t, s, id, []byte("and again?"), time.Now().Add(hour), false)
	wantNone(t, s, id)
}

func testUpdateDeleteRace(t *testing.T, s web.Store) {
	ctx := t.Context()
	for round := range 50 {
		id := NewID()
		mustSave(t, s, id, []byte("signed in"), time.Now().Add(hour))
		var wg sync.WaitGroup
		errs := make(chan error, 9)
		start := make(chan struct{})
		for g := range 8 {
			wg.Go(func() {
				<-start
				if _, err := s.Update(ctx, id, concurrentValue(g, round), time.Now().Add(hour)); err != nil {
					errs <- fmt.Errorf("update: %w", err)
				}
			})
		}
		wg.Go(func() {
			<-start
			if err := s.Delete(ctx, id); err != nil {
				errs <- fmt.Errorf("delete: %w", err)
			}
		})
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if got := mustLoad(t, s, id); got != nil {
			t.Fatalf("round %d: after Updates raced a Delete, Load = %s: the deleted session came back", round, show(got))
		}
	}
}

func testExpiry(t *testing.T, s web.Store) {
	id := NewID()
	data := []byte("expires soon")
	start := time.Now()
	expiry := start.Add(ExpiryAhead)
	mustSave(t, s, id, data, expiry)
	got := mustLoad(t, s, id)
	if elapsed := time.Since(start); elapsed < ExpiryAhead/2 {
		if !bytes.Equal(got, data) {
			t.Errorf("Load %v after Create with an expiry %v ahead = %s, want the data", elapsed.Round(time.Millisecond), ExpiryAhead, show(got))
		}
	} else {
		t.Logf("Create and Load took %v: too slow to check the data before its expiry", elapsed)
	}

	time.Sleep(time.Until(expiry))
	deadline := expiry.Add(ExpiryGrace)
	for {
		got := mustLoad(t, s, id)
		if got == nil {
			t.Logf("gone %v after its expiry", time.Since(expiry).Round(time.Millisecond))
			mustUpdate(t, s, id, data, time.Now().Add(hour), false) // expired stays expired
			break
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("Load(%s) after its expiry = %s, want nil or the data", id, show(got))
		}
		if time.Now().After(deadline) {
			t.Fatalf("Load(%s) still returns the data %v after its expiry", id, ExpiryGrace)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wantNone(t, s, id) // and it stays gone
}

func testPastExpiry(t *testing.T, s web.Store) {
	for _, past := range []time.Duration{time.Millisecond, time.Minute, 48 * time.Hour} {
		id := NewID()
		mustSave(t, s, id, []byte("already expired"), time.Now().Add(-past))
		wantNone(t, s, id)

		id = NewID()
		mustSave(t, s, id, []byte("alive"), time.Now().Add(hour))
		mustUpdate(t, s, id, []byte("expired over it"), time.Now().Add(-past), true)
		wantNone(t, s, id)
	}
}

func testIsolation(t *testing.T, s web.Store) {
	base := NewID()
	ids := []string{base, base[:42], base[:1], base + "x"}
	for len(ids) < 64 {
		ids = append(ids, NewID())
	}
	for i, id := range ids {
		mustSave(t, s, id, []byte("value "+strconv.Itoa(i)), time.Now().Add(hour))
	}
	for i, id := range ids {
		wantData(t, s, id, []byte("value "+strconv.Itoa(i)))
	}
	mustDelete(t, s, ids[0])
	wantNone(t, s, ids[0])
	for i, id := range ids[1:] {
		wantData(t, s, id, []byte("value "+strconv.Itoa(i+1)))
	}
}

func testBinary(t *testing.T, s web.Store) {
	all := make([]byte, 0, 256+16)
	for b := range 256 {
		all = append(all, byte(b))
	}
	for name, data := range map[string][]byte{
		"every byte value": all,
		"zero bytes":       make([]byte, 16),
		"zero in between":  []byte("a\x00b\x00\x00c"),
		"invalid UTF-8":    []byte("\xff\xfe\xc3\x28\xa0\xa1"),
		"one byte":         {0x00},
	} {
		id := NewID()
		mustSave(t, s, id, data, time.Now().Add(hour))
		if got := mustLoad(t, s, id); !bytes.Equal(got, data) {
			t.Errorf("%s: Load = %s, want %s", name, show(got), show(data))
		}
	}
}

func testLarge(t *testing.T, s web.Store) {
	id := NewID()
	data := randomBytes(64 << 10)
	mustSave(t, s, id, data, time.Now().Add(hour))
	wantData(t, s, id, data)
}

// concurrentValue is the value goroutine g writes at step i: self-describing,
// so that a reader of a shared ID can tell a whole value from a torn one.
func concurrentValue(g, i int) []byte {
	head := fmt.Sprintf("%d:%d:", g, i)
	return append([]byte(head), bytes.Repeat([]byte{byte(g*31 + i)}, 100+g*7+i%13)...)
}

// validConcurrentValue reports whether b is a whole concurrentValue.
func validConcurrentValue(b []byte) bool {
	gs, rest, ok := bytes.Cut(b, []byte(":"))
	if !ok {
		return false
	}
	is, _, ok := bytes.Cut(rest, []byte(":"))
	if !ok {
		return false
	}
	g, err1 := strconv.Atoi(string(gs))
	i, err2 := strconv.Atoi(string(is))
	return err1 == nil && err2 == nil && bytes.Equal(b, concurrentValue(g, i))
}

func testConcurrent(t *testing.T, s web.Store) {
	const goroutines, steps = 16, 30
	shared := []string{NewID(), NewID(), NewID(), NewID()}
	for i, id := range shared {
		mustSave(t, s, id, concurrentValue(goroutines+i, 0), time.Now().Add(hour))
	}
	ctx := t.Context()
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			own, exists := NewID(), false
			fail := func(format string, args ...any) {
				errs <- fmt.Errorf("goroutine %d: "+format, append([]any{g}, args...)...)
			}
			for i := range steps {
				v := concurrentValue(g, i)
				if exists {
					ok, err := s.Update(ctx, own, v, time.Now().Add(hour))
					if err != nil || !ok {
						fail("Update of its own ID = %v, %v; want true, nil", ok, err)
						return
					}
				} else if err := s.Create(ctx, own, v, time.Now().Add(hour)); err != nil {
					fail("Create: %v", err)
					return
				}
				exists = true
				got, err := s.Load(ctx, own)
				if err != nil || !bytes.Equal(got, v) {
					fail("Load of its own ID after a save = %s, %v; want %s", show(got), err, show(v))
					return
				}
				sh := shared[(g+i)%len(shared)]
				if _, err := s.Update(ctx, sh, v, time.Now().Add(hour)); err != nil {
					fail("Update shared: %v", err)
					return
				}
				got, err = s.Load(ctx, shared[(g+i+1)%len(shared)])
				if err != nil || got != nil && !validConcurrentValue(got) {
					fail("Load shared = %s, %v; want nil or a whole value", show(got), err)
					return
				}
				if i%5 == 4 {
					if err := s.Delete(ctx, own); err != nil {
						fail("Delete: %v", err)
						return
					}
					own, exists = NewID(), false // a deleted ID is never saved again
					if got, err := s.Load(ctx, own); err != nil || got != nil {
						fail("Load of its own ID after Delete = %s, %v; want nil", show(got), err)
						return
					}
				}
				if i%7 == 6 {
					if err := s.Delete(ctx, sh); err != nil {
						fail("Delete shared: %v", err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// bounded runs f and returns its error, failing t if f does not return
// within CallBound.
func bounded(t *testing.T, what string, f func() error) (err error, ok bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err, true
	case <-time.After(CallBound):
		t.Errorf("%s with a cancelled context did not return within %v", what, CallBound)
		return nil, false
	}
}

func testCancelledContext(t *testing.T, s web.Store) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()

	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"cancelled", cancelled}, {"past deadline", expired}} {
		ctx := c.ctx
		// outcome checks a call's error and logs what the store did.
		outcome := func(what string, err error) (honoured bool) {
			t.Helper()
			if err == nil {
				t.Logf("%s, %s context: nil (the store did the work)", what, c.name)
				return false
			}
			if !errors.Is(err, ctx.Err()) {
				t.Errorf("%s, %s context: error %v, want nil or an error wrapping %v", what, c.name, err, ctx.Err())
			} else {
				t.Logf("%s, %s context: %v", what, c.name, err)
			}
			return true
		}

		// Create: a nil error means the data was saved.
		id, data := NewID(), []byte("saved with a "+c.name+" context")
		if err, ok := bounded(t, "Create", func() error { return s.Create(ctx, id, data, time.Now().Add(hour)) }); ok {
			if !outcome("Create", err) {
				wantData(t, s, id, data)
			}
		}

		// Update: a nil error means the data was saved.
		id = NewID()
		mustSave(t, s, id, []byte("before"), time.Now().Add(hour))
		var updated bool
		if err, ok := bounded(t, "Update", func() (err error) {
			updated, err = s.Update(ctx, id, data, time.Now().Add(hour))
			return err
		}); ok {
			if !outcome("Update", err) {
				if !updated {
					t.Errorf("Update, %s context: false and a nil error over an existing session", c.name)
				}
				wantData(t, s, id, data)
			}
		}

		// Load: a nil error means the right data.
		id = NewID()
		mustSave(t, s, id, data, time.Now().Add(hour))
		var got []byte
		if err, ok := bounded(t, "Load", func() (err error) { got, err = s.Load(ctx, id); return err }); ok {
			if !outcome("Load", err) && !bytes.Equal(got, data) {
				t.Errorf("Load, %s context: %s and a nil error, want %s", c.name, show(got), show(data))
			}
		}

		// Delete: a nil error means the data is gone.
		if err, ok := bounded(t, "Delete", func() error { return s.Delete(ctx, id) }); ok {
			if !outcome("Delete", err) {
				wantNone(t, s, id)
			}
		}

		// Ping: either answer, as long as it returns.
		if err, ok := bounded(t, "Ping", func() error { return s.Ping(ctx) }); ok {
			outcome("Ping", err)
		}
	}
}

func testPing(t *testing.T, s web.Store) {
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}
