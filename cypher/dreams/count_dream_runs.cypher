// The dream counts of many representations in one look: the dreamEvents streams of a process
// share it (a stream reads its runs only once its count has moved). `present`: both peers
// still exist (a stream of peers purged, merged away or renamed ends).
UNWIND $views AS v
OPTIONAL MATCH (a:Peer {workspace: v.workspace, name: v.observer})
OPTIONAL MATCH (b:Peer {workspace: v.workspace, name: v.observed})
OPTIONAL MATCH (a)-[r:OBSERVES]->(b)
RETURN v.workspace AS workspace, v.observer AS observer, v.observed AS observed,
       a IS NOT NULL AND b IS NOT NULL AS present, coalesce(r.dream_runs, 0) AS dream_runs
