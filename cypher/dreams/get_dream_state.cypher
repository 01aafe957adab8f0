// A representation's dream count (its OBSERVES edge) and peer card (the observed peer's
// system-managed card File at $path).
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(b:Peer {workspace: $workspace, name: $observed})
OPTIONAL MATCH (b)-[:HAS_FILE]->(f:File {path: $path})
WHERE f.managed_by = 'system'
RETURN coalesce(r.dream_runs, 0) AS dream_runs,
       coalesce(f.card_entries, []) AS card, coalesce(f.card_support, []) AS card_support
