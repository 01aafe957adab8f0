// A dream's first write, in its transaction: its representation's OBSERVES edge, before any
// belief. Derivations write the edge first too, then the beliefs they count again, so a dream
// and a derivation of the same representation never wait on each other in a circle (a dream
// that locked beliefs first, then wanted the edge a derivation held while it waited for one of
// those beliefs, was reported deadlocked). The edge stays locked until the dream commits, and
// its finish (finish_dream.cypher) reads the counters under this lock.
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
SET r.dream_lock = true
RETURN count(r) AS locked
