// Explicit beliefs an app states itself (origin 'api'): no source message, so no DERIVED_FROM
// edge. The OBSERVES edge marks the representation and counts what was written into it, each
// edge once per write and in (observer, observed) order, so concurrent writes into the same
// representations do not deadlock (create_explicit_observations.cypher says how they did), and
// counts the write itself (get_view_writes.cypher), which each belief keeps as its
// view_write, so a concurrent derivation's duplicate check sees it.
CALL () {
  UNWIND $observations AS props
  WITH props.observer AS observer_name, props.observed AS observed_name, count(*) AS n
  ORDER BY observer_name, observed_name
  MATCH (observer:Peer {workspace: $workspace, name: observer_name})
  MATCH (observed:Peer {workspace: $workspace, name: observed_name})
  MERGE (observer)-[r:OBSERVES]->(observed)
  SET r.observations = coalesce(r.observations, 0) + n,
      r.writes = coalesce(r.writes, 0) + 1
  RETURN collect({observer: observer_name, observed: observed_name, writes: r.writes}) AS writes
}
UNWIND $observations AS props
MATCH (:Peer {workspace: $workspace, name: props.observer})
MATCH (:Peer {workspace: $workspace, name: props.observed})
CREATE (o:Observation)
SET o = props,
    o.view_write = [w IN writes WHERE w.observer = props.observer
                                  AND w.observed = props.observed][0].writes
RETURN o {.*, embedding: null} AS observation
