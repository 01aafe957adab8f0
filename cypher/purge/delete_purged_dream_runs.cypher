// Dream runs whose record quotes purged data: every run of a representation the purged peer
// ($peer) is part of, and runs of the affected representations ($scopes) whose events name a
// purged belief ($observation_ids) or changed the card: a card event holds the lines' text,
// not the beliefs they rest on, so any of them may quote what was purged. Up to $batch runs per
// run.
MATCH (r:DreamRun {workspace: $workspace})
WHERE r.observer = $peer OR r.observed = $peer
   OR ({observer: r.observer, observed: r.observed} IN $scopes
       AND (coalesce(r.card_changes, 0) > 0
            OR any(id IN $observation_ids WHERE r.events CONTAINS id)))
WITH r
LIMIT $batch
DETACH DELETE r
RETURN count(*) AS deleted
