// Explicit observations with their verbatim source span. The OBSERVES edge marks the
// representation and counts what was written into it (searches size their path by it) and
// what came since its last dream; a write moves its idle moment to $idle_at (null: no idle
// trigger). A representation whose undreamed beliefs reach $dream_threshold (0: never) and that
// has no dream waiting or running claims one here: the edge names the new job, which the
// caller enqueues in the same transaction, so concurrent derivations schedule one dream, not
// one each. With $dream_triggers false (dreams switched off where the beliefs come from) the
// edge's dream counters, idle moment and claim are left as they are. Returned on every row:
// `claims`, and `writes`, each view's count of writes (get_view_writes.cypher) after this one,
// which each new belief keeps as its view_write.
// This is the derivation's one write of each edge: once per edge, edges in (observer,
// observed) order, counters and claim in one SET. Each item reads the edge's own properties on
// its right-hand side, which makes Cypher lock the edge before reading them, so concurrent
// counts are never lost (a value read in a WITH before the SET would be read unlocked). The
// claim comes first, reading the undreamed count before its own item adds to it. Neo4j takes
// a deletion lock on a relationship before each write of it, so a transaction writing an edge
// a second time waited for that lock while a concurrent derivation held it and waited for the
// first write's lock: a deadlock, retried after a second.
CALL () {
  UNWIND $observations AS item
  MATCH (:Message {workspace: $workspace, id: item.message_id})
  WITH item.props.observer AS observer_name, item.props.observed AS observed_name, count(*) AS n
  ORDER BY observer_name, observed_name
  MATCH (observer:Peer {workspace: $workspace, name: observer_name})
  MATCH (observed:Peer {workspace: $workspace, name: observed_name})
  MERGE (observer)-[r:OBSERVES]->(observed)
  WITH observer_name, observed_name, n, r, randomUUID() AS fresh,
       CASE WHEN $dream_triggers THEN n ELSE 0 END AS d
  SET r.dream_job = CASE
        WHEN $dream_triggers AND $dream_threshold > 0
             AND coalesce(r.since_dream, 0) + n >= $dream_threshold
             AND NOT EXISTS {
               MATCH (j:Job {id: r.dream_job})
               WHERE j.status IN ['pending', 'running']
             }
          THEN fresh
        ELSE r.dream_job
      END,
      r.observations = coalesce(r.observations, 0) + n,
      r.writes = coalesce(r.writes, 0) + 1,
      r.since_dream = coalesce(r.since_dream, 0) + d,
      r.idle_dream_at = CASE WHEN $dream_triggers THEN $idle_at ELSE r.idle_dream_at END
  RETURN collect(CASE WHEN r.dream_job = fresh
                      THEN {observer: observer_name, observed: observed_name, job_id: fresh,
                            last_dream_at: r.last_dream_at}
                 END) AS claims,
         collect({observer: observer_name, observed: observed_name, writes: r.writes}) AS writes
}
UNWIND $observations AS item
MATCH (m:Message {workspace: $workspace, id: item.message_id})
MATCH (:Peer {workspace: $workspace, name: item.props.observer})
MATCH (:Peer {workspace: $workspace, name: item.props.observed})
CREATE (o:Observation)
SET o = item.props,
    o.view_write = [w IN writes WHERE w.observer = item.props.observer
                                  AND w.observed = item.props.observed][0].writes,
    // Counted in the edge's undreamed beliefs: the dream that reads it takes it off the count
    // (finish_dream.cypher), and only then.
    o.dream_counted = CASE WHEN $dream_triggers THEN true END
CREATE (o)-[:DERIVED_FROM {span: item.span}]->(m)
RETURN o.id AS id, claims, writes
