// Replaces a live message's content (and its embeddings and token count) and marks stale every
// explicit belief taken from it: each is reconciled against the new text, and the deriver
// reads the message again. One already stale keeps its first reason and counts one more
// invalidation (mark_stale_descendants.cypher says why). No row: no live message with this id
// in the workspace.
MATCH (m:Message {workspace: $workspace, id: $id})
WHERE m.deleted_at IS NULL
SET m.content = $content, m.embedding = $embedding,
    m.passage_embeddings = $passage_embeddings, m.token_count = $token_count,
    m.edited_at = $now
WITH m
CALL (m) {
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  WHERE o.workspace = $workspace AND o.deleted_at IS NULL
  WITH o, coalesce(o.stale, false) AS was_stale
  SET o.stale = true, o.reconcile_pending = true,
      o.stale_version = coalesce(o.stale_version, 0) + 1,
      o.stale_reason = CASE WHEN was_stale THEN o.stale_reason ELSE $reason END,
      o.stale_at = CASE WHEN was_stale THEN o.stale_at ELSE $now END
  RETURN collect({id: o.id, observer: o.observer, observed: o.observed}) AS changed
}
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at, .derive} AS message, changed
