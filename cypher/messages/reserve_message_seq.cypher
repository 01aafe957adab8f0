// Taking the session's counter write-locks the session node, so concurrent batches of one
// session get disjoint, ordered sequence numbers.
MATCH (s:Session {workspace: $workspace, name: $session})
SET s.next_seq = coalesce(s.next_seq, 0) + $count
// A session deleted while this waited for its lock reads as empty: no row.
WITH s WHERE s.name IS NOT NULL
RETURN s.next_seq - $count AS first, s.active AS active
