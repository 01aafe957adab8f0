// Sets a representation's count of undreamed beliefs ($count) and reads its dream counters,
// as a change that made a belief pending without counting it leaves them (tests only).
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
SET r.since_dream = $count
RETURN r.since_dream AS since_dream
