// A page of a peer's files by path ($limit + 1 rows: the last says there is a next page).
MATCH (:Peer {workspace: $workspace, name: $peer})-[:HAS_FILE]->(f:File)
WHERE $after IS NULL OR f.path > $after
RETURN f {.*, card_entries: null, card_support: null} AS file
ORDER BY f.path
LIMIT $limit + 1
