// Deletes a representation's OBSERVES edge, as a rename, merge or purge of its peer would
// (tests only).
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
DELETE r
RETURN count(*) AS dropped
