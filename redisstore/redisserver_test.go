package redisstore_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/plinthtest"
)

// redisEnv names the variable holding the URL of the Redis the tests use.
const redisEnv = plinthtest.RedisEnv

// redisServer is a private redis-server process on a port of its own.
type redisServer struct {
	t    *testing.T
	port int
	cmd  *exec.Cmd
}

// startRedis starts redis-server without persistence on a free port (port 0)
// or on the given one, and waits until it answers PING. It skips the test
// unless PLINTH_TEST_REDIS is set (as every test needing Redis does), or
// when redis-server is not on PATH.
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
	s := &redisServer{t: t, port: port, cmd: cmd}
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
