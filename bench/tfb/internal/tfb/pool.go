package tfb

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DatabaseURL returns the benchmark database's URL from DATABASE_URL, or an
// error when it is unset or not a PostgreSQL URL.
func DatabaseURL() (string, error) {
	u := strings.TrimSpace(os.Getenv("DATABASE_URL"))
	if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		return "", fmt.Errorf("DATABASE_URL=%q: the TechEmpower benchmark needs PostgreSQL, e.g. postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable", u)
	}
	return u, nil
}

// PoolSize is the pool size of the peers: PLINTH_DATABASE_MAX_CONNS when
// set, otherwise the data package's default, max(4, 4*GOMAXPROCS), so that
// every implementation runs with the same pool.
func PoolSize() (int, error) {
	if v := strings.TrimSpace(os.Getenv("PLINTH_DATABASE_MAX_CONNS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("PLINTH_DATABASE_MAX_CONNS=%q: want a whole number", v)
		}
		if n > 0 {
			return n, nil
		}
	}
	return max(4, 4*runtime.GOMAXPROCS(0)), nil
}

// OpenPool opens the peers' pgx pool on DATABASE_URL with PoolSize
// connections and checks that the database answers.
func OpenPool(ctx context.Context) (*pgxpool.Pool, error) {
	u, err := DatabaseURL()
	if err != nil {
		return nil, err
	}
	size, err := PoolSize()
	if err != nil {
		return nil, err
	}
	return OpenPoolURL(ctx, u, size)
}

// OpenPoolURL opens a pgx pool of size connections on url and pings it.
func OpenPoolURL(ctx context.Context, url string, size int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	cfg.MaxConns = int32(size)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("database does not answer: %w", err)
	}
	return pool, nil
}

// Setup is what every implementation's handler needs: the Store and the
// primed Cache.
type Setup struct {
	Store Store
	Cache *Cache
}

// NewPoolSetup primes the cache from pool and returns a Setup over it.
func NewPoolSetup(ctx context.Context, pool *pgxpool.Pool) (Setup, error) {
	cache, err := LoadCache(ctx, pool)
	if err != nil {
		return Setup{}, err
	}
	return Setup{Store: PoolStore{Pool: pool}, Cache: cache}, nil
}
