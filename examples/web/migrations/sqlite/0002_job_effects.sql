-- One row per job token: runs counts the runs of the job that carried it,
-- so that a check from outside sees a lost job (no row) or a job run again.
CREATE TABLE job_effects (
    token      TEXT PRIMARY KEY,
    runs       INTEGER NOT NULL,
    updated_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);
