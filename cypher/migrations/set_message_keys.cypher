// One batch of giving a session's messages their keys ($peer_keys: peer name -> key).
MATCH (m:Message {workspace: $workspace, session: $session})
WHERE m.session_key IS NULL
WITH m LIMIT $batch
SET m.workspace_key = $workspace_key, m.session_key = $session_key,
    m.peer_key = $peer_keys[m.peer]
RETURN count(m) AS updated
