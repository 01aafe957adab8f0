// Whether the workspace, and the session and peer a queue status names, exist: a status of
// names that do not exist would read as an empty, finished queue.
OPTIONAL MATCH (w:Workspace {name: $workspace})
OPTIONAL MATCH (s:Session {workspace: $workspace, name: $session})
OPTIONAL MATCH (p:Peer {workspace: $workspace, name: $peer})
RETURN w IS NOT NULL AS workspace, ($session IS NULL OR s IS NOT NULL) AS session,
       ($peer IS NULL OR p IS NOT NULL) AS peer
