// The messages as a reader saw them ($seen: id, peer, and edited_at, null when never edited),
// compared with what is stored now: `gone` when deleted, purged or edited since; `moved` when
// live and unedited but sent by another peer now (a merge or split moved it). The times are
// compared as instants (`=` on two datetimes also compares their zones, and a time read back
// may name UTC differently from the one written), with no null left to make the test unknown.
UNWIND $seen AS s
OPTIONAL MATCH (m:Message {workspace: $workspace, id: s.id})
WITH s, m,
     m IS NULL OR m.deleted_at IS NOT NULL
     OR coalesce(m.edited_at.epochSeconds, -1) <> coalesce(s.edited_at.epochSeconds, -1)
     OR coalesce(m.edited_at.nanosecond, -1) <> coalesce(s.edited_at.nanosecond, -1) AS gone
RETURN s.id AS id, gone, NOT gone AND m.peer <> s.peer AS moved
