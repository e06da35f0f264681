package tfb

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Store runs the benchmark's queries. Its methods are safe for concurrent
// use.
type Store interface {
	// Worlds fills dst with len(dst) random World rows, one SELECT each.
	Worlds(ctx context.Context, dst []World) error
	// UpdateWorlds fills dst with len(dst) random World rows, gives each a
	// new random number and persists them (see updateRandomWorlds).
	UpdateWorlds(ctx context.Context, dst []World) error
	// Fortunes appends every Fortune row to dst.
	Fortunes(ctx context.Context, dst []Fortune) ([]Fortune, error)
}

// PoolStore is a Store over a pgx pool: a request holds a connection only
// for its own queries.
type PoolStore struct{ Pool *pgxpool.Pool }

// Worlds implements Store. One row takes a pooled connection for one query;
// several hold one connection for the request's queries.
func (s PoolStore) Worlds(ctx context.Context, dst []World) error {
	if len(dst) == 1 {
		return s.Pool.QueryRow(ctx, selectWorld, RandomID()).Scan(&dst[0].ID, &dst[0].RandomNumber)
	}
	c, err := s.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	return readWorlds(ctx, c, dst)
}

// UpdateWorlds implements Store.
func (s PoolStore) UpdateWorlds(ctx context.Context, dst []World) error {
	c, err := s.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	return updateRandomWorlds(ctx, c, dst)
}

// Fortunes implements Store.
func (s PoolStore) Fortunes(ctx context.Context, dst []Fortune) ([]Fortune, error) {
	return readFortunes(ctx, s.Pool, dst)
}
