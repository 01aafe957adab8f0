// A running purge of messages (its lease not run out) that names one of $ids: read under the
// messages' locks, so two purges of one message never both begin (each would count what the
// other deleted, and derive the same messages again).
MATCH (r:Purge {workspace: $workspace})
WHERE r.peer IS NULL AND r.lease_until > $now AND any(id IN r.message_ids WHERE id IN $ids)
RETURN r.id AS id, r.started_at AS started_at
ORDER BY r.started_at
LIMIT 1
