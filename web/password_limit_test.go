package web_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/web"
)

// cheap are argon2id parameters that make tests fast.
var cheap = web.PasswordParams{Memory: 64, Time: 1}

// waitFor polls cond until it holds, failing the test after a generous
// bound (a lifecycle bound, not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPasswordsSlots checks that no more hashes run at once than there are
// slots, whatever the number of callers, and that every caller that waits
// gets its hash.
func TestPasswordsSlots(t *testing.T) {
	const slots, callers = 3, 40
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap, Slots: slots, Queue: callers})
	var running, peak, hashes atomic.Int64
	web.SetPasswordsHook(pw, func() {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		hashes.Add(1)
		time.Sleep(2 * time.Millisecond) // keep the slot a while, so callers overlap
		running.Add(-1)
	})
	hash, err := pw.Hash(context.Background(), "pw")
	if err != nil {
		t.Fatal(err)
	}
	hashes.Store(0)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			encoded := hash
			if i%2 == 0 {
				encoded = "" // an unknown user: the stand-in hash takes a slot too
			}
			if _, _, err := pw.Check(context.Background(), encoded, "guess"); err != nil {
				t.Errorf("check %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if got := peak.Load(); got > slots {
		t.Errorf("%d hashes ran at once, want at most %d (the slots)", got, slots)
	}
	if got := hashes.Load(); got != callers {
		t.Errorf("%d hashes ran, want %d: a caller in the queue lost its turn", got, callers)
	}
}

// TestPasswordsUnknownUserCostsAHash checks that a check for an unknown user
// ("") runs exactly one hash with the configured parameters, as a check of a
// stored hash does: the two cost the same (user enumeration by timing).
func TestPasswordsUnknownUserCostsAHash(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap})
	var hashes atomic.Int64
	web.SetPasswordsHook(pw, func() { hashes.Add(1) })
	hash, _ := pw.Hash(context.Background(), "pw")
	for _, encoded := range []string{hash, ""} {
		hashes.Store(0)
		if ok, _, err := pw.Check(context.Background(), encoded, "guess"); ok || err != nil {
			t.Fatalf("Check(%q): ok %v err %v", encoded, ok, err)
		}
		if got := hashes.Load(); got != 1 {
			t.Errorf("Check(%q) ran %d hashes, want 1", encoded, got)
		}
	}
}

// TestPasswordsCancelledWaitLeavesQueue checks that a check waiting for a
// slot leaves the queue when its context ends, and never starts its hash.
func TestPasswordsCancelledWaitLeavesQueue(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap, Slots: 1, Queue: 4})
	hold := make(chan struct{})
	var closeHold sync.Once
	defer closeHold.Do(func() { close(hold) }) // never leave a goroutine blocked, even on failure
	var hashes atomic.Int64
	web.SetPasswordsHook(pw, func() {
		if hashes.Add(1) == 1 {
			<-hold
		}
	})
	first := make(chan error, 1)
	go func() {
		_, _, err := pw.Check(context.Background(), "", "a")
		first <- err
	}()
	waitFor(t, "the first check to take the slot", func() bool { return hashes.Load() == 1 })

	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		_, _, err := pw.Check(ctx, "", "b")
		second <- err
	}()
	waitFor(t, "the second check to queue", func() bool { return web.PasswordsWaiting(pw) == 1 })
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled check: %v, want context.Canceled", err)
	}
	if n := web.PasswordsWaiting(pw); n != 0 {
		t.Errorf("%d checks still waiting after the cancel", n)
	}
	// A context that already ended never queues.
	if _, _, err := pw.Check(ctx, "", "c"); !errors.Is(err, context.Canceled) {
		t.Errorf("check with an ended context: %v", err)
	}
	closeHold.Do(func() { close(hold) })
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if got := hashes.Load(); got != 1 {
		t.Errorf("%d hashes ran, want 1: a cancelled check started its hash", got)
	}
	// The slot is free again, but not for a request that is gone.
	if _, _, err := pw.Check(ctx, "", "d"); !errors.Is(err, context.Canceled) {
		t.Errorf("check with an ended context and a free slot: %v", err)
	}
	if got := hashes.Load(); got != 1 {
		t.Errorf("%d hashes ran, want 1: a check with an ended context ran its hash", got)
	}
	if _, _, err := pw.Check(context.Background(), "", "e"); err != nil {
		t.Fatal(err)
	}
}

// TestPasswordsQueueFull checks that a check finding every slot taken and
// the queue full fails at once with a 503 problem.
func TestPasswordsQueueFull(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap, Slots: 1, Queue: -1})
	hold := make(chan struct{})
	var closeHold sync.Once
	defer closeHold.Do(func() { close(hold) })
	var hashes atomic.Int64
	web.SetPasswordsHook(pw, func() {
		if hashes.Add(1) == 1 {
			<-hold
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := pw.Hash(context.Background(), "a")
		done <- err
	}()
	waitFor(t, "the first hash to take the slot", func() bool { return hashes.Load() == 1 })
	_, _, err := pw.Check(context.Background(), "", "b")
	if !errors.Is(err, web.ErrPasswordBusy) || !strings.HasPrefix(err.Error(), "503 ") {
		t.Errorf("check past the queue: %v, want a 503 wrapping ErrPasswordBusy", err)
	}
	if n := hashes.Load(); n != 1 {
		t.Errorf("%d hashes ran, want 1: the refused check ran its hash", n)
	}
	closeHold.Do(func() { close(hold) })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestPasswordsHostileHash checks that a stored hash asking for more than
// the caps is refused without being run.
func TestPasswordsHostileHash(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{})
	var hashes atomic.Int64
	web.SetPasswordsHook(pw, func() { hashes.Add(1) })
	salt, key := "c2FsdHNhbHRzYWx0c2FsdA", "aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
	long := strings.Repeat("A", 2000)
	for _, bad := range []string{
		"$argon2id$v=19$m=4194304,t=2,p=1$" + salt + "$" + key, // 4 GiB
		"$argon2id$v=19$m=65537,t=2,p=1$" + salt + "$" + key,   // just over 64 MiB
		"$argon2id$v=19$m=19456,t=100,p=1$" + salt + "$" + key, // 100 passes
		"$argon2id$v=19$m=19456,t=11,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=2,p=255$" + salt + "$" + key, // 255 threads
		"$argon2id$v=19$m=19456,t=2,p=256$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=2,p=1$" + long + "$" + key,  // 1.5 KB salt
		"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + long, // 1.5 KB key
		"$argon2id$v=19$m=19456,t=2,p=1,m=4194304$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=2,t=2$" + salt + "$" + key, // no p
		"$argon2id$v=19$m=4,t=2,p=1$" + salt + "$" + key,     // under argon2's minimum
	} {
		if ok, _, err := pw.Check(context.Background(), bad, "pw"); ok || !errors.Is(err, web.ErrPasswordHash) {
			t.Errorf("Check(%.60q): ok %v err %v, want ErrPasswordHash", bad, ok, err)
		}
		// The package's CheckPassword has the same caps.
		if ok, _, err := web.CheckPassword(bad, "pw"); ok || !errors.Is(err, web.ErrPasswordHash) {
			t.Errorf("CheckPassword(%.60q): ok %v err %v, want ErrPasswordHash", bad, ok, err)
		}
	}
	if n := hashes.Load(); n != 0 {
		t.Errorf("%d hostile hashes were run", n)
	}
	// The caps are the configuration's: a tighter one refuses the defaults.
	tight := web.NewPasswords(web.PasswordsConfig{Params: cheap, Max: web.PasswordParams{Memory: 64, Time: 1, Threads: 1}})
	def, err := web.HashPassword("pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tight.Check(context.Background(), def, "pw"); !errors.Is(err, web.ErrPasswordHash) {
		t.Errorf("default hash under a 64 KiB cap: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewPasswords with Params above Max did not panic")
			}
		}()
		web.NewPasswords(web.PasswordsConfig{Max: web.PasswordParams{Memory: 1024}})
	}()
}

// TestPasswordHashBytes measures the bytes one hash with the default
// parameters allocates, the figure docs/web.md quotes: argon2id allocates
// its whole memory parameter, 19 MiB, at once.
//
//	go test -run TestPasswordHashBytes -v ./web/
func TestPasswordHashBytes(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{})
	hash, err := pw.Hash(context.Background(), "pw")
	if err != nil {
		t.Fatal(err)
	}
	const n = 2
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if _, _, err := pw.Check(context.Background(), hash, "guess"); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	per := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("one check with the default parameters allocates %.2f MiB (%.0f bytes)", per/(1<<20), per)
	if lo, hi := float64(web.DefaultPasswordMemory<<10), float64(web.DefaultPasswordMemory<<10+1<<20); per < lo || per > hi {
		t.Errorf("%.0f bytes per hash, want %.0f to %.0f (19 MiB and change)", per, lo, hi)
	}
}

// TestPasswordsPeakHeap signs in 50 unknown emails at once through an App
// and checks that the heap never holds more than the slots' hashes, with a
// generous margin: before the bound, all 50 hashes held their memory at
// once.
func TestPasswordsPeakHeap(t *testing.T) {
	const (
		slots   = 2
		clients = 50
		mem     = 4 << 10 // KiB: 4 MiB per hash
	)
	pw := web.NewPasswords(web.PasswordsConfig{Params: web.PasswordParams{Memory: mem, Time: 1}, Slots: slots, Queue: clients})
	var checks atomic.Int64
	app := signInApp(t, nil, middleware.Limit{}, pw, func() { checks.Add(1) })

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Microsecond):
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			// Unthrottled: from one address, Throttle would let only
			// DefaultLoginClientConcurrency of them in at once.
			if w := postTo(app, "/login-plain", fmt.Sprintf("nobody%d@example.com", i), "guess"); w.Code != 200 {
				t.Errorf("sign-in %d: %d %s", i, w.Code, w.Body)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	grew := int64(peak.Load()) - int64(base)
	limit := int64(4*slots*mem<<10 + 24<<20)
	t.Logf("%d sign-ins at once, %d slots of %d MiB: the heap grew by %.1f MiB at most (limit %.0f MiB)",
		clients, slots, mem>>10, float64(grew)/(1<<20), float64(limit)/(1<<20))
	if grew > limit {
		t.Errorf("the heap grew by %d MiB, want under %d MiB: hashes ran beyond the slots", grew>>20, limit>>20)
	}
	if n := checks.Load(); n != clients {
		t.Errorf("%d checks, want %d", n, clients)
	}
}
