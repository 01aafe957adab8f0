// A representation's dream runs in order (listing, and the dreamEvents subscription).
CREATE INDEX dream_run_scope IF NOT EXISTS
FOR (d:DreamRun) ON (d.workspace, d.observer, d.observed, d.seq)
