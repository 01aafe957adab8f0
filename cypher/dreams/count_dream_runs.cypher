// The dream counts of many representations in one look: the dreamEvents streams of a process
// share it (a stream reads its runs only once its count has moved). `present`: both peers
// still exist, in a workspace not being deleted (a stream of peers purged, merged away or
// renamed ends, as does one of a workspace whose deletion began).
UNWIND $views AS v
OPTIONAL MATCH (w:Workspace {name: v.workspace})
OPTIONAL MATCH (a:Peer {workspace: v.workspace, name: v.observer})
OPTIONAL MATCH (b:Peer {workspace: v.workspace, name: v.observed})
OPTIONAL MATCH (a)-[r:OBSERVES]->(b)
RETURN v.workspace AS workspace, v.observer AS observer, v.observed AS observed,
       a IS NOT NULL AND b IS NOT NULL AND w.deleting_at IS NULL AS present, coalesce(r.dream_runs, 0) AS dream_runs
