// For each candidate (a belief a derivation has just written), a current explicit belief of
// its representation that another write put there after the derivation's duplicate probe read
// the view: view_write between c.seen (the view's write number the probe saw) and c.own (the
// derivation's own), both excluded. It repeats the candidate by the dedup rule: the same
// normalized text (similarity 2.0), or at least $floor similar (vector.similarity.cosine's
// scale) if the caller finds their contents agree: up to $neighbours, most similar first. Those
// writes have committed (the derivation holds the view's edge), and only their beliefs are
// compared, exactly, whatever the size of the view.
UNWIND $candidates AS c
CALL (c) {
  MATCH (o:Observation)
  USING INDEX o:Observation(scope_key, view_write)
  WHERE o.scope_key = c.scope AND o.view_write > c.seen AND o.view_write < c.own
    AND o.workspace = $workspace AND o.level = 'explicit'
    AND o.deleted_at IS NULL AND o.superseded_at IS NULL
  WITH o, CASE WHEN o.content_key = c.key THEN 2.0
               ELSE vector.similarity.cosine(o.embedding, c.embedding) END AS similarity
  WHERE similarity >= $floor
  RETURN o.id AS repeats, similarity, o.content AS content
  ORDER BY similarity DESC, o.id
  LIMIT $neighbours
}
RETURN c.id AS id, collect({id: repeats, similarity: similarity, content: content}) AS found
