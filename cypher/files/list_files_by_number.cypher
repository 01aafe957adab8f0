// One numbered page of a peer's files by path ($reverse: the last path first) and how many it
// has: only the page's files are read whole (each may hold a long text), where reading them
// all to cut one page out read every file of the peer. `found` is false for no such peer.
OPTIONAL MATCH (p:Peer {workspace: $workspace, name: $peer})
RETURN p IS NOT NULL AS found,
       COUNT { (p)-[:HAS_FILE]->(:File) } AS total,
       COLLECT {
         MATCH (p)-[:HAS_FILE]->(f:File)
         WITH f
         ORDER BY CASE WHEN $reverse THEN f.path END DESC, f.path
         SKIP $skip
         LIMIT $limit
         RETURN f {.*, card_entries: null, card_support: null}
       } AS files
