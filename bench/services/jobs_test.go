package services

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
)

type noop struct {
	N int `json:"n"`
}

func (noop) Kind() string { return "bench_noop" }

// BenchmarkJobsSQLiteEnqueueInTx: one enqueue in an application
// transaction on SQLite, Plinth (jobs.Client.Enqueue joining data.InTx)
// beside raw River (InsertTx and InsertManyTx on the same *sql.Tx).
func BenchmarkJobsSQLiteEnqueueInTx(b *testing.B) {
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: "sqlite:" + filepath.Join(b.TempDir(), "b.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := riverjobs.Migrate(ctx, db, nil); err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	be, err := riverjobs.New(db, riverjobs.Config{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	c := jobstest.NewClient(b, be)
	jobs.Handle(c, func(context.Context, *jobs.Job[noop]) error { return nil })
	raw, err := river.NewClient(riversqlite.New(db.SQL()), &river.Config{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("plinth", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := db.InTx(ctx, func(ctx context.Context) error { _, err := c.Enqueue(ctx, noop{N: i}, nil); return err }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("river-insert", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := db.WithTx(ctx, func(tx *sql.Tx) error { _, err := raw.InsertTx(ctx, tx, noop{N: i}, nil); return err }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("river-insertmany", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := db.WithTx(ctx, func(tx *sql.Tx) error {
				_, err := raw.InsertManyTx(ctx, tx, []river.InsertManyParams{{Args: noop{N: i}}})
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkJobsSQLiteBatch: EnqueueMany of 100 jobs on SQLite beside raw
// River's InsertMany.
func BenchmarkJobsSQLiteBatch(b *testing.B) {
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: "sqlite:" + filepath.Join(b.TempDir(), "b.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := riverjobs.Migrate(ctx, db, nil); err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	be, err := riverjobs.New(db, riverjobs.Config{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	c := jobstest.NewClient(b, be)
	jobs.Handle(c, func(context.Context, *jobs.Job[noop]) error { return nil })
	raw, err := river.NewClient(riversqlite.New(db.SQL()), &river.Config{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	bs := make([]jobs.Batch, 100)
	ps := make([]river.InsertManyParams, 100)
	for i := range bs {
		bs[i] = jobs.Batch{Args: noop{N: i}}
		ps[i] = river.InsertManyParams{Args: noop{N: i}}
	}
	b.Run("plinth", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.EnqueueMany(ctx, bs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("river", func(b *testing.B) {
		for b.Loop() {
			if _, err := raw.InsertMany(ctx, ps); err != nil {
				b.Fatal(err)
			}
		}
	})
}
