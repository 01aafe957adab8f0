MATCH (o:Observation {id: $id, workspace: $workspace})
OPTIONAL MATCH (o)-[:DERIVED_FROM]->(premise:Observation {workspace: $workspace})
WITH o, collect(premise {.*, embedding: null}) AS premises
// A deleted message is no source any more: its text leaves every read. The first source
// (which dates it) and the latest $max_sources - 1 are returned, with how many there are: a
// fact said in 5,000 messages read them all.
WITH o, premises,
     COLLECT {
       MATCH (o)-[d:DERIVED_FROM]->(m:Message {workspace: $workspace})
       WHERE m.deleted_at IS NULL
       WITH d, m ORDER BY m.created_at, m.seq, m.id
       RETURN {m: m, span: d.span}
     } AS linked
// Only the sources kept are read whole (their text, metadata).
WITH o, premises, size(linked) AS source_count,
     [s IN CASE WHEN size(linked) <= $max_sources THEN linked
                ELSE linked[..1] + linked[(size(linked) - $max_sources + 1)..] END
      | {message: [m IN [s.m] | m {.id, .workspace, .session, .peer, .content, .context,
                                    .metadata, .created_at, .seq, .token_count, .client_id,
                                    .received_at, .edited_at}][0],
         span: s.span}] AS sources
// The latest $max_dependents of what was derived from it, with how many there are.
WITH o, premises, sources, source_count,
     COUNT { (:Observation {workspace: $workspace})-[:DERIVED_FROM]->(o) } AS dependent_count,
     COLLECT {
       MATCH (dependent:Observation {workspace: $workspace})-[:DERIVED_FROM]->(o)
       RETURN dependent {.*, embedding: null} AS dependent
       ORDER BY dependent.created_at DESC, dependent.id LIMIT $max_dependents
     } AS dependents,
     [(new:Observation)-[:SUPERSEDES]->(o) WHERE new.workspace = $workspace | new] AS replacing
// A current belief is replaced by nothing: a replacement since deleted gave it back. Of a
// replaced one, what replaces it still if anything does, else what did.
WITH o, premises, sources, source_count, dependents, dependent_count,
     CASE WHEN o.superseded_at IS NULL THEN []
          WHEN any(n IN replacing WHERE n.deleted_at IS NULL)
            THEN [n IN replacing WHERE n.deleted_at IS NULL]
          ELSE replacing END AS replaced_by
RETURN o {.*, embedding: null} AS observation, premises,
       sources, source_count, dependents, dependent_count,
       [(o)-[:SUPERSEDES]->(old:Observation) WHERE old.workspace = $workspace
          | old {.*, embedding: null}] AS replaces,
       [n IN replaced_by | n {.*, embedding: null}] AS replaced_by
