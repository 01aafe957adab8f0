// How many writes of explicit beliefs the OBSERVES edges of the given (observer, observed) views
// have taken so far (0 for a view never written). The number only grows: every write that adds
// explicit beliefs to a view, or moves them into it, adds one. A derivation reads it before its
// duplicate probe; its own write returns the number after adding its one (holding the edge's
// write lock, so every other write into the view has committed). Any larger step means another
// write committed in between, which the probe could not see.
UNWIND $views AS v
OPTIONAL MATCH (:Peer {workspace: $workspace, name: v.observer})
               -[r:OBSERVES]->(:Peer {workspace: $workspace, name: v.observed})
RETURN v.observer AS observer, v.observed AS observed, coalesce(r.writes, 0) AS writes
