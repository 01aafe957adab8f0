// Live messages stored before passages were embedded (no passage_embeddings at all; an empty
// list marks a message of one passage), for the workers to embed in the background; only
// $workspace's when it is set (a worker serving one workspace). The next batch after $after, in
// id order through the id index: from the start each time, every batch read again the messages
// done before it (a pass over two million messages read a billion).
MATCH (m:Message)
WHERE m.id > $after AND m.passage_embeddings IS NULL AND m.deleted_at IS NULL
  AND ($workspace IS NULL OR m.workspace = $workspace)
RETURN m.workspace AS workspace, m.id AS id, m.content AS content
ORDER BY m.id
LIMIT $limit
