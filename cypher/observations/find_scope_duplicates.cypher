// For each candidate, the existing explicit beliefs of its representation it resembles, most
// similar first: one with the same normalized text (through the (scope_key, content_key)
// index, similarity 2.0), then up to $neighbours at or above $floor (vector.similarity.cosine's
// scale). A representation of at most $exact_scan_limit beliefs is compared with each of them;
// a larger one through the observation_vectors index (its $neighbours nearest), so the write
// path does not grow with it. The caller takes the first at or above its duplicate threshold
// (whose `content` agrees with the candidate's) as the belief the candidate repeats; the rest
// are what a dream compares it with.
// With no current belief of the same text, a retired one (`retired`: deleted, or corrected
// away while taken from the candidate's own message) is returned instead; the similar ones are
// returned retired too: the caller drops a candidate that repeats one, so a deleted or corrected
// fact is not derived back (a wording that differs, "stated on" another date, brought a deleted
// one back). One a purge is erasing (`purging`) is neither: the candidate is a belief of its own.
// `c.exclude` (a belief's own id when a merge checks it, else '') is never returned.
UNWIND $candidates AS c
OPTIONAL MATCH (:Peer {workspace: $workspace, name: c.observer})
               -[r:OBSERVES]->(:Peer {workspace: $workspace, name: c.observed})
WITH c, coalesce(r.observations, 0) AS total
CALL (c, total) {
  MATCH (o:Observation)
  USING INDEX o:Observation(scope_key, content_key)
  WHERE o.scope_key = c.scope AND o.content_key = c.key
    AND o.workspace = $workspace AND o.level = 'explicit' AND o.id <> c.exclude
    AND o.purging IS NULL
  WITH o,
       o.deleted_at IS NOT NULL
       OR (o.superseded_at IS NOT NULL
           AND EXISTS { (o)-[:DERIVED_FROM]->(:Message {id: c.message}) }) AS retired
  WHERE retired OR o.superseded_at IS NULL
  RETURN o.id AS id, 2.0 AS similarity, retired, o.content AS content
  ORDER BY retired, o.created_at, o.id
  LIMIT 1
  UNION ALL
  WITH c, total WHERE total <= $exact_scan_limit
  CALL (c) {
    MATCH (o:Observation)
    USING INDEX o:Observation(scope_key)
    WHERE o.scope_key = c.scope AND o.workspace = $workspace AND o.level = 'explicit'
      AND o.id <> c.exclude AND o.purging IS NULL
    WITH o, o.deleted_at IS NOT NULL
            OR (o.superseded_at IS NOT NULL
                AND EXISTS { (o)-[:DERIVED_FROM]->(:Message {id: c.message}) }) AS retired
    WHERE retired OR o.superseded_at IS NULL
    WITH o, retired, vector.similarity.cosine(o.embedding, c.embedding) AS similarity
    WHERE similarity >= $floor
    RETURN o.id AS id, similarity, retired, o.content AS content
    ORDER BY similarity DESC
    LIMIT $neighbours
  }
  RETURN id, similarity, retired, content
  UNION ALL
  WITH c, total WHERE total > $exact_scan_limit
  MATCH (o:Observation)
    SEARCH o IN (VECTOR INDEX observation_vectors FOR c.embedding
                 WHERE o.workspace = $workspace AND o.scope_key = c.scope
                   AND o.level = 'explicit'
                 LIMIT $neighbours) SCORE AS similarity
  WITH o, similarity, o.deleted_at IS NOT NULL
                      OR (o.superseded_at IS NOT NULL
                          AND EXISTS { (o)-[:DERIVED_FROM]->(:Message {id: c.message}) })
                      AS retired
  WHERE similarity >= $floor AND o.id <> c.exclude AND o.purging IS NULL
    AND (retired OR o.superseded_at IS NULL)
  RETURN o.id AS id, similarity, retired, o.content AS content
}
WITH c, id, similarity, retired, content
ORDER BY similarity DESC
RETURN c.index AS index,
       collect({id: id, similarity: similarity, retired: retired, content: content}) AS found
