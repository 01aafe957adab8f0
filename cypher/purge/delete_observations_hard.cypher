// Hard-deletes beliefs with their edges (DERIVED_FROM, SUPERSEDES), counted by level. The
// caller deletes dependents before their premises, so no remaining belief loses a premise.
// Each view's OBSERVES edge counts its beliefs less the ones deleted (searches size their
// path by that count: left high, a small view would be searched as a large one), edges in
// (observer, observed) order like every writer of them.
MATCH (o:Observation {workspace: $workspace})
WHERE o.id IN $ids
WITH collect(o) AS gone
CALL (gone) {
  UNWIND gone AS o
  WITH o.observer AS observer, o.observed AS observed, count(*) AS n
  ORDER BY observer, observed
  MATCH (:Peer {workspace: $workspace, name: observer})
        -[r:OBSERVES]->(:Peer {workspace: $workspace, name: observed})
  SET r.observations = CASE WHEN coalesce(r.observations, 0) > n THEN r.observations - n
                            ELSE 0 END
  RETURN count(*) AS views
}
UNWIND gone AS o
WITH o, o.level AS level
DETACH DELETE o
RETURN level, count(*) AS deleted
