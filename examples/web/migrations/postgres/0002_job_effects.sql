-- One row per job token: runs counts the runs of the job that carried it,
-- so that a check from outside sees a lost job (no row) or a job run again.
CREATE TABLE job_effects (
    token      text PRIMARY KEY,
    runs       integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
