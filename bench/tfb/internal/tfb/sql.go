package tfb

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The statements. pgx prepares each on first use per connection and reuses
// it (its default statement cache), so every row read is one Bind/Execute/
// Sync round trip.
const (
	selectWorld    = "SELECT id, randomnumber FROM world WHERE id = $1"
	selectFortunes = "SELECT id, message FROM fortune"
	selectAll      = "SELECT id, randomnumber FROM world"
	updateWorlds   = "UPDATE world SET randomnumber = v.r FROM (SELECT unnest($1::int[]) id, unnest($2::int[]) r) v WHERE world.id = v.id"
)

// querier is what the queries need of a connection: *pgx.Conn and
// *pgxpool.Conn both have it.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// readWorlds fills dst with random rows, one SELECT round trip per row.
func readWorlds(ctx context.Context, q querier, dst []World) error {
	for i := range dst {
		if err := q.QueryRow(ctx, selectWorld, RandomID()).Scan(&dst[i].ID, &dst[i].RandomNumber); err != nil {
			return err
		}
	}
	return nil
}

// updateRandomWorlds reads len(dst) random rows, gives each a new random
// number and persists them with one bulk UPDATE. An id drawn twice is
// updated once, with the last number drawn for it, and every entry of dst
// for that id reports that stored number. A deadlock (40P01) is retried.
func updateRandomWorlds(ctx context.Context, q querier, dst []World) error {
	if err := readWorlds(ctx, q, dst); err != nil {
		return err
	}
	for i := range dst {
		dst[i].RandomNumber = RandomNumber()
	}
	ids, nums := uniqueSorted(dst)
	var err error
	for range 3 {
		if _, err = q.Exec(ctx, updateWorlds, ids, nums); !isDeadlock(err) {
			break
		}
	}
	return err
}

// uniqueSorted returns the ids of ws in increasing order, each once, with
// the number of the last entry for each id, and sets that number on every
// entry with the id, so that ws reports what the UPDATE stores. Sorted ids
// make concurrent updates lock rows in the same order.
func uniqueSorted(ws []World) (ids, nums []int32) {
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(ws[a].ID - ws[b].ID) })
	ids = make([]int32, 0, len(ws))
	nums = make([]int32, 0, len(ws))
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && ws[order[end]].ID == ws[order[start]].ID {
			end++
		}
		last := ws[order[end-1]].RandomNumber
		for _, k := range order[start:end] {
			ws[k].RandomNumber = last
		}
		ids = append(ids, ws[order[start]].ID)
		nums = append(nums, last)
		start = end
	}
	return ids, nums
}

// isDeadlock reports whether err is PostgreSQL's deadlock_detected.
func isDeadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}

// readFortunes appends every row of the fortune table to dst.
func readFortunes(ctx context.Context, q querier, dst []Fortune) ([]Fortune, error) {
	rows, err := q.Query(ctx, selectFortunes)
	if err != nil {
		return dst, err
	}
	defer rows.Close()
	for rows.Next() {
		var f Fortune
		if err := rows.Scan(&f.ID, &f.Message); err != nil {
			return dst, err
		}
		dst = append(dst, f)
	}
	return dst, rows.Err()
}
