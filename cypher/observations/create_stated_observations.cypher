// Explicit beliefs an app states itself (origin 'api'): no source message, so no DERIVED_FROM
// edge. The OBSERVES edge marks the representation and counts what was written into it.
UNWIND $observations AS props
MATCH (observer:Peer {workspace: $workspace, name: props.observer})
MATCH (observed:Peer {workspace: $workspace, name: props.observed})
MERGE (observer)-[r:OBSERVES]->(observed)
SET r.observations = coalesce(r.observations, 0) + 1
CREATE (o:Observation)
SET o = props
RETURN o {.*, embedding: null} AS observation
