// The dream counts of many representations in one look: the dreamEvents streams of a process
// share it (a stream reads its runs only once its count has moved).
UNWIND $views AS v
OPTIONAL MATCH (:Peer {workspace: v.workspace, name: v.observer})
      -[r:OBSERVES]->(:Peer {workspace: v.workspace, name: v.observed})
RETURN v.workspace AS workspace, v.observer AS observer, v.observed AS observed,
       coalesce(r.dream_runs, 0) AS dream_runs
