// A deletion's first write: the OBSERVES edge of each view holding a belief taken from the
// messages ($message_ids) or among the beliefs ($observation_ids), in (observer, observed)
// order as every writer of several edges takes them. A dream commits its knowledge updates
// under its view's edge (lock_dream_view.cypher): so a deletion that reverses or undoes an
// update waits for a dream committing one, then reads it, and the other way round, and no
// belief ends replaced by two.
CALL () {
  MATCH (m:Message {workspace: $workspace})
  WHERE m.id IN $message_ids
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  RETURN o
  UNION
  MATCH (o:Observation {workspace: $workspace})
  WHERE o.id IN $observation_ids
  RETURN o
}
WITH DISTINCT o.observer AS observer, o.observed AS observed
ORDER BY observer, observed
MATCH (:Peer {workspace: $workspace, name: observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: observed})
SET r.dream_lock = true
RETURN count(r) AS locked
