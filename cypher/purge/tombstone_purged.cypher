// The first thing a purge does to what it erases: beliefs ($observation_ids) and messages
// ($message_ids) are tombstoned, so they leave every read at once and nothing new is derived
// from them (the deriver reads live messages, a dream refuses deleted premises) while the
// purge deletes them batch by batch. An earlier tombstone keeps its time. A belief the purge
// itself tombstones is marked `purging`: the deriver's duplicate check does not take it for a
// deleted one (a fact a new message states meanwhile was dropped, then the belief went), and
// a resumed purge does not take it for a tombstone to keep (find_message_derivations.cypher).
CALL () {
  MATCH (o:Observation {workspace: $workspace})
  WHERE o.id IN $observation_ids
  SET o.purging = CASE WHEN o.deleted_at IS NULL THEN true ELSE o.purging END,
      o.deleted_at = coalesce(o.deleted_at, $now)
  RETURN count(o) AS observations
}
CALL () {
  MATCH (m:Message {workspace: $workspace})
  WHERE m.id IN $message_ids
  SET m.deleted_at = coalesce(m.deleted_at, $now)
  RETURN count(m) AS messages
}
RETURN observations, messages
