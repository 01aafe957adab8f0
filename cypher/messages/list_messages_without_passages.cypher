// Live messages stored before passages were embedded (no passage_embeddings at all; an empty
// list marks a message of one passage), for the workers to embed in the background; only
// $workspace's when it is set (a worker serving one workspace).
MATCH (m:Message)
WHERE m.passage_embeddings IS NULL AND m.deleted_at IS NULL
  AND ($workspace IS NULL OR m.workspace = $workspace)
RETURN m.workspace AS workspace, m.id AS id, m.content AS content
LIMIT $limit
