// Explicit observations with their verbatim source span; the OBSERVES edge marks the scope.
UNWIND $observations AS item
MATCH (m:Message {workspace: $workspace, id: item.message_id})
MATCH (observer:Peer {workspace: $workspace, name: item.props.observer})
MATCH (observed:Peer {workspace: $workspace, name: item.props.observed})
CREATE (o:Observation)
SET o = item.props
CREATE (o)-[:DERIVED_FROM {span: item.span}]->(m)
MERGE (observer)-[:OBSERVES]->(observed)
RETURN o.id AS id
