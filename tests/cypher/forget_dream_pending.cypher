// Takes the pending mark off a workspace's beliefs, as if they had left their views unread
// (moved by a merge, split or rename, erased by a purge) (tests only).
MATCH (o:Observation {workspace: $workspace})
WHERE o.dream_pending = true
REMOVE o.dream_pending
RETURN count(o) AS forgotten
