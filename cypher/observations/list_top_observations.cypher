// The scope's most-derived and most recent current beliefs (for the context slice).
MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed})
WHERE o.deleted_at IS NULL AND NOT coalesce(o.stale, false) AND o.superseded_at IS NULL
WITH o ORDER BY coalesce(o.times_derived, 1) DESC, o.created_at DESC LIMIT $most_derived
WITH collect(o) AS derived
CALL (derived) {
  MATCH (r:Observation {workspace: $workspace, observer: $observer, observed: $observed})
  WHERE r.deleted_at IS NULL AND NOT coalesce(r.stale, false) AND r.superseded_at IS NULL
  RETURN r ORDER BY coalesce(r.valid_at, r.created_at) DESC LIMIT $most_recent
}
WITH derived, collect(r) AS recent
RETURN [o IN derived | o {.*, embedding: null}] AS most_derived,
       [o IN recent | o {.*, embedding: null}] AS most_recent
