// What the OBSERVES edges of the given (observer, observed) views count: the beliefs written
// into each so far, 0 for a view never written. A derivation reads them before its duplicate
// probe and again once its own count holds the edges' write locks: any other difference than
// its own count means another write committed in between, which the probe could not see.
UNWIND $views AS v
OPTIONAL MATCH (:Peer {workspace: $workspace, name: v.observer})
               -[r:OBSERVES]->(:Peer {workspace: $workspace, name: v.observed})
RETURN v.observer AS observer, v.observed AS observed, coalesce(r.observations, 0) AS beliefs
