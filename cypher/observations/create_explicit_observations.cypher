// Explicit observations with their verbatim source span; the OBSERVES edge marks the scope.
// Touching the edge locks it before its vector_label is read, so a scope that is being given
// an index of its own (claim_scope_index) labels every belief created after the claim.
UNWIND $observations AS item
MATCH (m:Message {workspace: $workspace, id: item.message_id})
MATCH (observer:Peer {workspace: $workspace, name: item.props.observer})
MATCH (observed:Peer {workspace: $workspace, name: item.props.observed})
MERGE (observer)-[r:OBSERVES]->(observed)
SET r.observations = coalesce(r.observations, 0) + 1
CREATE (o:Observation)
SET o = item.props
CREATE (o)-[:DERIVED_FROM {span: item.span}]->(m)
FOREACH (label IN CASE WHEN r.vector_label IS NULL THEN [] ELSE [r.vector_label] END |
  SET o:$(label)
)
RETURN o.id AS id, o.observer AS observer, o.observed AS observed,
       r.observations AS observations, r.vector_index IS NOT NULL AS indexed
