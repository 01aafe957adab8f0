MATCH (o:Observation {id: $id, workspace: $workspace})
OPTIONAL MATCH (o)-[:DERIVED_FROM]->(premise:Observation {workspace: $workspace})
WITH o, collect(premise {.*, embedding: null}) AS premises
// A deleted message is no source any more: its text leaves every read.
OPTIONAL MATCH (o)-[d:DERIVED_FROM]->(m:Message {workspace: $workspace})
WHERE m.deleted_at IS NULL
WITH o, premises,
     collect({message: m {.id, .workspace, .session, .peer, .content, .context, .metadata,
                          .created_at, .seq, .token_count, .client_id, .received_at, .edited_at},
              span: d.span}) AS sources
OPTIONAL MATCH (dependent:Observation {workspace: $workspace})-[:DERIVED_FROM]->(o)
WITH o, premises, sources, collect(dependent {.*, embedding: null}) AS dependents
RETURN o {.*, embedding: null} AS observation, premises,
       [s IN sources WHERE s.message IS NOT NULL] AS sources, dependents,
       [(o)-[:SUPERSEDES]->(old:Observation) WHERE old.workspace = $workspace
          | old {.*, embedding: null}] AS replaces,
       // A current belief is replaced by nothing: a replacement since deleted gave it back.
       [(new:Observation)-[:SUPERSEDES]->(o)
          WHERE new.workspace = $workspace AND o.superseded_at IS NOT NULL
          | new {.*, embedding: null}] AS replaced_by
