// Replaces a live message's content (and its embeddings and token count) and marks stale every
// explicit belief taken from it: each is reconciled against the new text, and the deriver
// reads the message again. No row: no live message with this id in the workspace.
MATCH (m:Message {workspace: $workspace, id: $id})
WHERE m.deleted_at IS NULL
SET m.content = $content, m.embedding = $embedding,
    m.passage_embeddings = $passage_embeddings, m.token_count = $token_count,
    m.edited_at = $now
WITH m
CALL (m) {
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  WHERE o.workspace = $workspace AND o.deleted_at IS NULL AND NOT coalesce(o.stale, false)
  SET o.stale = true, o.stale_reason = $reason, o.stale_at = $now, o.reconcile_pending = true
  RETURN collect({id: o.id, observer: o.observer, observed: o.observed}) AS changed
}
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at} AS message, changed
