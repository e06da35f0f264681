package tfb

import (
	"context"
	"fmt"
)

// Cache is the in-memory copy of the World table the cached-queries test
// reads: a slice indexed by id, filled once at startup and read-only after,
// so lookups need no lock.
type Cache struct{ rows []World }

// LoadCache reads the whole World table through q.
func LoadCache(ctx context.Context, q querier) (*Cache, error) {
	rows, err := q.Query(ctx, selectAll)
	if err != nil {
		return nil, fmt.Errorf("tfb: priming the cache: %w", err)
	}
	defer rows.Close()
	c := &Cache{rows: make([]World, WorldRows+1)}
	n := 0
	for rows.Next() {
		var w World
		if err := rows.Scan(&w.ID, &w.RandomNumber); err != nil {
			return nil, fmt.Errorf("tfb: priming the cache: %w", err)
		}
		if w.ID >= 1 && int(w.ID) <= WorldRows {
			c.rows[w.ID] = w
			n++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tfb: priming the cache: %w", err)
	}
	if n != WorldRows {
		return nil, fmt.Errorf("tfb: priming the cache: the world table has %d rows with ids 1..%d, want %d", n, WorldRows, WorldRows)
	}
	return c, nil
}

// Fill sets dst to len(dst) random rows from the cache.
func (c *Cache) Fill(dst []World) {
	for i := range dst {
		dst[i] = c.rows[RandomID()]
	}
}
