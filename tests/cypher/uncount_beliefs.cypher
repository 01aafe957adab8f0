// Makes beliefs ($ids) pending but uncounted, as a change that made them pending again (an
// update's reversal, a reinstatement) leaves them, and sets the representation's count of
// undreamed beliefs to $count (tests only).
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
SET r.since_dream = $count
WITH r
MATCH (o:Observation {workspace: $workspace})
WHERE o.id IN $ids
SET o.dream_pending = true
REMOVE o.dream_counted
RETURN count(o) AS uncounted
