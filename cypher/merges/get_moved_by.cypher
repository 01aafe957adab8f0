// Which operation and source moved each of these beliefs (move_scope_observations.cypher);
// null for one no merge or rename moved.
UNWIND $ids AS id
MATCH (o:Observation {id: id})
WHERE o.workspace = $workspace
RETURN o.id AS id, o.moved_by AS moved_by
