// A stored message's vector to warm up with, so that warm-up searches start where real ones do,
// near the data: the first message of the scope (a workspace, or one peer in it) among the
// $scan messages whose ids sort from $start on. Ids are random UUIDs, so a random $start draws a
// message at random; the id index gives them in order, so at most $scan are looked at.
MATCH (m:Message)
WHERE m.id >= $start
WITH m
ORDER BY m.id
LIMIT $scan
WITH m
WHERE m.workspace = $workspace AND ($peer IS NULL OR m.peer = $peer) AND m.embedding IS NOT NULL
RETURN m.embedding AS embedding
LIMIT 1
