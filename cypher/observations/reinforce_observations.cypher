// A repeated fact: count it again and keep the new evidence beside the old. A message derived
// again (after an edit) keeps its edge with the span found in its current text.
UNWIND $repeats AS item
MATCH (o:Observation {id: item.id, workspace: $workspace})
MATCH (m:Message {workspace: $workspace, id: item.message_id})
SET o.times_derived = coalesce(o.times_derived, 1) + 1
MERGE (o)-[d:DERIVED_FROM]->(m)
SET d.span = item.span
RETURN count(o) AS reinforced
