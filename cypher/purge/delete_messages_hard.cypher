// Hard-deletes messages with their edges. First the links to them of the beliefs the purge
// keeps (find_message_derivations.cypher: a tombstone or correction another live message
// supports) go. A message some other belief still cites stays: the purge deletes that belief
// first (found again on its next round), so no belief loses its source.
MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids
CALL (m) {
  MATCH (kept:Observation)-[link:DERIVED_FROM]->(m)
  WHERE kept.purging IS NULL
    AND (kept.deleted_at IS NOT NULL OR kept.superseded_at IS NOT NULL
         OR kept.origin = 'correction')
    AND EXISTS { (kept)-[:DERIVED_FROM]->(other:Message)
                 WHERE other.deleted_at IS NULL AND NOT other.id IN $ids }
  DELETE link
}
WITH m
WHERE NOT EXISTS { (:Observation)-[:DERIVED_FROM]->(m) }
DETACH DELETE m
RETURN count(*) AS deleted
