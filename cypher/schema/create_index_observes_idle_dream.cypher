// The idle trigger finds representations whose idle moment has passed without reading the
// others: only those with undreamed beliefs carry idle_dream_at.
CREATE INDEX observes_idle_dream IF NOT EXISTS
FOR ()-[r:OBSERVES]-() ON (r.idle_dream_at)
