// How many beliefs of a workspace a merge has yet to check by the dedup rule (tests only).
MATCH (o:Observation {workspace: $workspace})
WHERE o.dedup_pending = true
RETURN count(o) AS pending
