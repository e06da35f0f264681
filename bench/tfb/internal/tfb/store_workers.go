package tfb

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// WorkerStore is a Store of "one connection per worker": a fixed number of
// goroutines each own one pgx.Conn, and requests hand their queries to them
// over a channel. It is one of the pool modes bench/tfb/run-pool-modes.sh
// measures.
type WorkerStore struct {
	jobs chan *job
	wg   sync.WaitGroup
}

// jobKind says what a job asks for.
type jobKind int

const (
	jobWorlds jobKind = iota
	jobUpdates
	jobFortunes
)

// job is one request's database work, run by a worker.
type job struct {
	kind     jobKind
	ctx      context.Context
	worlds   []World
	fortunes []Fortune
	err      error
	done     chan struct{}
}

var jobPool = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}

// NewWorkerStore connects n connections with cfg and starts a worker
// goroutine for each.
func NewWorkerStore(ctx context.Context, cfg *pgx.ConnConfig, n int) (*WorkerStore, error) {
	s := &WorkerStore{jobs: make(chan *job, 4*n)}
	var conns []*pgx.Conn
	for range n {
		c, err := pgx.ConnectConfig(ctx, cfg.Copy())
		if err != nil {
			for _, c := range conns {
				c.Close(ctx)
			}
			return nil, fmt.Errorf("tfb: worker connection: %w", err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		s.wg.Go(func() { s.work(c) })
	}
	return s, nil
}

// work runs jobs on c until the job channel closes. A job's queries run
// without its request's cancellation: pgx closes a connection whose query
// is cancelled, and the worker's connection must outlive its requests. A
// connection found closed all the same is replaced before the next job.
func (s *WorkerStore) work(c *pgx.Conn) {
	cfg := c.Config()
	for j := range s.jobs {
		if c.IsClosed() {
			if nc, err := pgx.ConnectConfig(context.Background(), cfg.Copy()); err == nil {
				c = nc
			}
		}
		ctx := context.WithoutCancel(j.ctx)
		switch j.kind {
		case jobWorlds:
			j.err = readWorlds(ctx, c, j.worlds)
		case jobUpdates:
			j.err = updateRandomWorlds(ctx, c, j.worlds)
		case jobFortunes:
			j.fortunes, j.err = readFortunes(ctx, c, j.fortunes)
		}
		j.done <- struct{}{}
	}
	c.Close(context.Background())
}

// run hands j to a worker and waits for it.
func (s *WorkerStore) run(j *job) error {
	select {
	case s.jobs <- j:
	case <-j.ctx.Done():
		return j.ctx.Err()
	}
	<-j.done
	return j.err
}

// submit runs a job of kind on ws and fs and returns the fortunes.
func (s *WorkerStore) submit(ctx context.Context, kind jobKind, ws []World, fs []Fortune) ([]Fortune, error) {
	j := jobPool.Get().(*job)
	j.kind, j.ctx, j.worlds, j.fortunes, j.err = kind, ctx, ws, fs, nil
	err := s.run(j)
	fs = j.fortunes
	j.ctx, j.worlds, j.fortunes = nil, nil, nil
	jobPool.Put(j)
	return fs, err
}

// Worlds implements Store.
func (s *WorkerStore) Worlds(ctx context.Context, dst []World) error {
	_, err := s.submit(ctx, jobWorlds, dst, nil)
	return err
}

// UpdateWorlds implements Store.
func (s *WorkerStore) UpdateWorlds(ctx context.Context, dst []World) error {
	_, err := s.submit(ctx, jobUpdates, dst, nil)
	return err
}

// Fortunes implements Store.
func (s *WorkerStore) Fortunes(ctx context.Context, dst []Fortune) ([]Fortune, error) {
	return s.submit(ctx, jobFortunes, nil, dst)
}

// Close stops the workers, which close their connections.
func (s *WorkerStore) Close() {
	close(s.jobs)
	s.wg.Wait()
}
