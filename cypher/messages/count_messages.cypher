// How many messages a list holds: the filters of list_messages.cypher, without the cursor.
MATCH (m:Message {workspace: $workspace})
WHERE m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
RETURN count(m) AS total
