// Explicit observations with their verbatim source span. The OBSERVES edge marks the
// representation and counts what was written into it (searches size their path by it).
UNWIND $observations AS item
MATCH (m:Message {workspace: $workspace, id: item.message_id})
MATCH (observer:Peer {workspace: $workspace, name: item.props.observer})
MATCH (observed:Peer {workspace: $workspace, name: item.props.observed})
MERGE (observer)-[r:OBSERVES]->(observed)
SET r.observations = coalesce(r.observations, 0) + 1
CREATE (o:Observation)
SET o = item.props
CREATE (o)-[:DERIVED_FROM {span: item.span}]->(m)
RETURN o.id AS id
