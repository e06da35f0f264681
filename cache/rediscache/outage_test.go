package rediscache_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/cache/rediscache"
	"github.com/plinth-go/plinth/plinthtest"
)

// redisServer is a private redis-server process on a port of its own.
type redisServer struct {
	port int
	cmd  *exec.Cmd
}

// startRedis starts redis-server without persistence on a free port (port
// 0) or on the given one, and waits until it answers PING. It skips unless
// PLINTH_TEST_REDIS is set (as every test needing Redis does), or when
// redis-server is not on PATH.
func startRedis(t *testing.T, port int) *redisServer {
	t.Helper()
	plinthtest.RedisURL(t) // the tests that need Redis run; this one starts a redis-server of its own
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		plinthtest.Missing(t, "redis", "redis-server is not on PATH: this test starts and stops a Redis of its own")
	}
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &redisServer{port: port, cmd: cmd}
	t.Cleanup(s.stop)
	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1})
	defer c.Close()
	for i := 0; ; i++ {
		if err := c.Ping(context.Background()).Err(); err == nil {
			return s
		} else if i == 500 {
			t.Fatalf("redis-server on port %d does not answer: %v", port, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// stop kills the server and waits for it; it may be called twice.
func (s *redisServer) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// TestOutage: Redis stopped mid-run: Remember keeps answering (computed,
// bypassed) and the check fails; Redis back: the check passes again and
// Remember stores and hits once the fail-fast pause is over.
func TestOutage(t *testing.T) {
	srv := startRedis(t, 0)
	store, err := cache.Open(cache.OpenConfig{URL: "redis://" + srv.addr() + "/0", Openers: rediscache.Openers()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	check := cache.Check(store)
	o := cache.New[string](store, cache.Config[string]{Tags: []string{"t"}})
	var calls atomic.Int32
	fn := func(context.Context) (string, error) { calls.Add(1); return "v", nil }
	ctx := t.Context()
	fetch := func() cache.Outcome {
		t.Helper()
		v, out, err := o.Fetch(ctx, "k", time.Minute, fn)
		if err != nil || v != "v" {
			t.Fatalf("Fetch = %q, %v", v, err)
		}
		return out
	}
	if out := fetch(); out != cache.Miss {
		t.Fatalf("first Fetch: %v", out)
	}
	if out := fetch(); out != cache.Hit {
		t.Fatalf("second Fetch: %v", out)
	}
	if err := check(ctx); err != nil {
		t.Fatal(err)
	}

	srv.stop()
	for range 3 {
		if out := fetch(); out != cache.Bypassed {
			t.Fatalf("Fetch with Redis stopped: %v, want bypassed", out)
		}
	}
	if err := check(ctx); err == nil {
		t.Fatal("the check passed with Redis stopped")
	}

	startRedis(t, srv.port) // empty: persistence is off
	deadline := time.Now().Add(20 * time.Second)
	for check(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the check still fails 20s after Redis came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A successful Ping ends the fail-fast pause: the next Fetch stores.
	if out := fetch(); out != cache.Miss {
		t.Fatalf("Fetch after Redis came back: %v, want a miss (stored)", out)
	}
	if out := fetch(); out != cache.Hit {
		t.Fatalf("then: %v, want a hit", out)
	}
}
