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
WITH o, premises, sources, collect(dependent {.*, embedding: null}) AS dependents,
     [(new:Observation)-[:SUPERSEDES]->(o) WHERE new.workspace = $workspace | new] AS replacing
// A current belief is replaced by nothing: a replacement since deleted gave it back. Of a
// replaced one, what replaces it still if anything does, else what did.
WITH o, premises, sources, dependents,
     CASE WHEN o.superseded_at IS NULL THEN []
          WHEN any(n IN replacing WHERE n.deleted_at IS NULL)
            THEN [n IN replacing WHERE n.deleted_at IS NULL]
          ELSE replacing END AS replaced_by
RETURN o {.*, embedding: null} AS observation, premises,
       [s IN sources WHERE s.message IS NOT NULL] AS sources, dependents,
       [(o)-[:SUPERSEDES]->(old:Observation) WHERE old.workspace = $workspace
          | old {.*, embedding: null}] AS replaces,
       [n IN replaced_by | n {.*, embedding: null}] AS replaced_by
