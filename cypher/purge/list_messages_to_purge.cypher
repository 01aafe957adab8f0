// The given messages, tombstoned ones included, with where they sit.
MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids
RETURN m.id AS id, m.session AS session, m.seq AS seq
