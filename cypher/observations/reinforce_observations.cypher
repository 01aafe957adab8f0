// A repeated fact: count it again and keep the new evidence beside the old. A message derived
// again (after an edit, or after a purge erased a belief it also supported) keeps its edge with
// the span found in its current text, and is not counted a second time.
UNWIND $repeats AS item
MATCH (o:Observation {id: item.id, workspace: $workspace})
MATCH (m:Message {workspace: $workspace, id: item.message_id})
OPTIONAL MATCH (o)-[seen:DERIVED_FROM]->(m)
WITH o, m, item, seen IS NULL AS fresh
SET o.times_derived = coalesce(o.times_derived, 1) + CASE WHEN fresh THEN 1 ELSE 0 END
MERGE (o)-[d:DERIVED_FROM]->(m)
SET d.span = item.span
RETURN count(o) AS reinforced
