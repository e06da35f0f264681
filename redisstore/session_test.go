package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/redisstore"
	"github.com/plinth-go/plinth/web"
	"github.com/plinth-go/plinth/web/storetest"
)

// newClient returns a client of the test server, closed after t.
func newClient(t testing.TB) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(plinthtest.RedisURL(t))
	if err != nil {
		t.Fatalf("%s: %v", redisEnv, err)
	}
	opts.ContextTimeoutEnabled = true
	c := redis.NewClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// testPrefix returns a key prefix of its own, whose keys are deleted after
// t, so that parallel test runs on one Redis do not meet.
func sessionPrefix(t testing.TB, c *redis.Client) string {
	t.Helper()
	prefix := "plinth:test:session:" + storetest.NewID()[:12] + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("cleaning up %s*: %v", prefix, err)
			return
		}
		if len(keys) > 0 {
			if err := c.Del(ctx, keys...).Err(); err != nil {
				t.Errorf("cleaning up %s*: %v", prefix, err)
			}
		}
	})
	return prefix
}

// newStore returns a SessionStore with a prefix of its own on the test server.
func newStore(t testing.TB) (*redisstore.SessionStore, *redis.Client, string) {
	t.Helper()
	c := newClient(t)
	prefix := sessionPrefix(t, c)
	return redisstore.NewSessionStore(redisstore.SessionStoreConfig{Client: c, Prefix: prefix}), c, prefix
}

func TestSessionConformance(t *testing.T) {
	plinthtest.RedisURL(t)
	storetest.Run(t, func(t *testing.T) web.Store {
		s, _, _ := newStore(t)
		return s
	})
}

// TestOpenSessionStoreConformance runs the suite on stores made by OpenSessionStore, with the
// client options OpenSessionStore sets, under DefaultSessionPrefix; the IDs are random, and the
// keys the suite saved are deleted after it.
func TestOpenSessionStoreConformance(t *testing.T) {
	u := plinthtest.RedisURL(t)
	storetest.Run(t, func(t *testing.T) web.Store {
		s, err := redisstore.OpenSessionStore(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		tr := &tracked{Store: s, ids: map[string]bool{}}
		t.Cleanup(func() {
			for id := range tr.ids {
				if err := s.Delete(context.Background(), id); err != nil {
					t.Error(err)
				}
			}
			if err := s.(*redisstore.SessionStore).Close(); err != nil {
				t.Error(err)
			}
		})
		return tr
	})
}

// tracked is a web.Store that remembers the IDs saved through it.
type tracked struct {
	web.Store
	mu  sync.Mutex
	ids map[string]bool
}

func (s *tracked) Create(ctx context.Context, id string, data []byte, expiry time.Time) error {
	s.mu.Lock()
	s.ids[id] = true
	s.mu.Unlock()
	return s.Store.Create(ctx, id, data, expiry)
}

// TestSessionKeyAndTTL checks where Create and Update write and that the
// session's expiry is the key's TTL.
func TestSessionKeyAndTTL(t *testing.T) {
	s, c, prefix := newStore(t)
	ctx := t.Context()
	id := storetest.NewID()
	const ahead = 10 * time.Minute
	if err := s.Create(ctx, id, []byte("data"), time.Now().Add(ahead)); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, prefix+id).Result()
	if err != nil || got != "data" {
		t.Fatalf("GET %s%s = %q, %v; want \"data\"", prefix, id, got, err)
	}
	ttl, err := c.PTTL(ctx, prefix+id).Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > ahead {
		t.Errorf("PTTL = %v, want in (0, %v]", ttl, ahead)
	}

	// An Update moves the TTL.
	if ok, err := s.Update(ctx, id, []byte("data2"), time.Now().Add(2*ahead)); err != nil || !ok {
		t.Fatalf("Update = %v, %v", ok, err)
	}
	if ttl, err := c.PTTL(ctx, prefix+id).Result(); err != nil || ttl <= ahead || ttl > 2*ahead {
		t.Errorf("PTTL after Update = %v, %v; want in (%v, %v]", ttl, err, ahead, 2*ahead)
	}

	// An Update with a past expiry deletes the key at once, rather than
	// leaving it to expire.
	if ok, err := s.Update(ctx, id, []byte("data"), time.Now().Add(-time.Second)); err != nil || !ok {
		t.Fatalf("Update with a past expiry = %v, %v", ok, err)
	}
	if n, err := c.Exists(ctx, prefix+id).Result(); err != nil || n != 0 {
		t.Errorf("EXISTS after an Update with a past expiry = %d, %v; want 0", n, err)
	}

	// An expiry less than a millisecond ahead still sets a TTL (rounded up
	// to 1 ms), never a key without one.
	id = storetest.NewID()
	if err := s.Create(ctx, id, []byte("data"), time.Now().Add(500*time.Microsecond)); err != nil {
		t.Fatal(err)
	}
	if ttl, err := c.PTTL(ctx, prefix+id).Result(); err != nil || ttl == -1 {
		t.Errorf("PTTL after a Create 0.5 ms ahead = %v, %v; want a TTL or no key", ttl, err)
	}
}

func TestSessionDefaultPrefix(t *testing.T) {
	c := newClient(t)
	s := redisstore.NewSessionStore(redisstore.SessionStoreConfig{Client: c})
	ctx := t.Context()
	id := storetest.NewID()
	if err := s.Create(ctx, id, []byte("x"), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	defer c.Del(context.Background(), redisstore.DefaultSessionPrefix+id)
	if n, err := c.Exists(ctx, "plinth:session:"+id).Result(); err != nil || n != 1 {
		t.Errorf("EXISTS plinth:session:%s = %d, %v; want 1", id, n, err)
	}
}

// TestSessionUnreachable checks a store whose Redis does not answer (a closed
// port): OpenSessionStore succeeds (a Redis briefly down at startup must not stop the
// application), Ping fails with an error naming the address, and Load and
// the writes fail instead of answering "no session".
func TestSessionUnreachable(t *testing.T) {
	s, err := redisstore.OpenSessionStore(t.Context(), "redis://127.0.0.1:1/0?max_retries=-1")
	if err != nil {
		t.Fatalf("OpenSessionStore: %v", err)
	}
	defer s.(*redisstore.SessionStore).Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	start := time.Now()
	err = s.Ping(ctx)
	t.Logf("Ping of a closed port: %v after %v", err, time.Since(start).Round(time.Microsecond))
	if err == nil {
		t.Fatal("Ping of a closed port: nil error")
	}
	for _, want := range []string{"redisstore: ping", "127.0.0.1:1", "refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Ping error %q does not contain %q", err, want)
		}
	}
	if data, err := s.Load(ctx, storetest.NewID()); err == nil {
		t.Errorf("Load of an unreachable store = %q, nil; want an error", data)
	}
	if err := s.Create(ctx, storetest.NewID(), []byte("x"), time.Now().Add(time.Minute)); err == nil {
		t.Error("Create on an unreachable store: nil error")
	}
	if _, err := s.Update(ctx, storetest.NewID(), []byte("x"), time.Now().Add(time.Minute)); err == nil {
		t.Error("Update on an unreachable store: nil error")
	}
	if err := s.Delete(ctx, storetest.NewID()); err == nil {
		t.Error("Delete on an unreachable store: nil error")
	}
}

func TestOpenSessionStoreBadURL(t *testing.T) {
	for _, u := range []string{
		"",
		"http://127.0.0.1:6379",
		"redis://127.0.0.1:notaport",
		"redis://127.0.0.1:6379/notadb",
		"redis://127.0.0.1:6379/0?nosuchoption=1",
		"redis://127.0.0.1:6379/0?dial_timeout=soon",
	} {
		s, err := redisstore.OpenSessionStore(context.Background(), u)
		if err == nil {
			s.(*redisstore.SessionStore).Close()
			t.Errorf("OpenSessionStore(%q): nil error", u)
			continue
		}
		if !strings.HasPrefix(err.Error(), "redisstore: ") {
			t.Errorf("OpenSessionStore(%q): error %q, want it to start with \"redisstore: \"", u, err)
		}
	}
}

// TestSessionStoreClose checks that Close closes the client OpenSessionStore made, once, and leaves
// alone a client given to NewSessionStore.
func TestSessionStoreClose(t *testing.T) {
	u := plinthtest.RedisURL(t)
	s, err := redisstore.OpenSessionStore(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	st := s.(*redisstore.SessionStore)
	if err := st.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := st.Ping(t.Context()); !errors.Is(err, redis.ErrClosed) {
		t.Errorf("Ping after Close: %v, want %v", err, redis.ErrClosed)
	}

	c := newClient(t)
	if err := redisstore.NewSessionStore(redisstore.SessionStoreConfig{Client: c}).Close(); err != nil {
		t.Fatalf("Close of a SessionStore made by NewSessionStore: %v", err)
	}
	if err := c.Ping(t.Context()).Err(); err != nil {
		t.Errorf("the client given to NewSessionStore after the SessionStore's Close: %v, want it open", err)
	}
}

func TestNewSessionStoreNilClient(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "SessionStoreConfig.Client") {
			t.Errorf("NewSessionStore without a client: recovered %v, want a panic naming SessionStoreConfig.Client", r)
		}
	}()
	redisstore.NewSessionStore(redisstore.SessionStoreConfig{})
}

// TestSessionStoreString checks the description the sessions log at start: the engine
// and where the client connects, never the password (no server needed:
// OpenSessionStore does not connect).
func TestSessionStoreString(t *testing.T) {
	s, err := redisstore.OpenSessionStore(t.Context(), "redis://app:s3cret-pw@127.0.0.1:6379/3")
	if err != nil {
		t.Fatal(err)
	}
	defer s.(*redisstore.SessionStore).Close()
	got := fmt.Sprint(s)
	if want := "redis addr=127.0.0.1:6379 db=3 prefix=plinth:session:"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if strings.Contains(got, "s3cret") {
		t.Errorf("String() %q shows the password", got)
	}
}
