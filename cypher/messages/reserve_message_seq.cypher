// Taking the session's counter write-locks the session node, so concurrent batches of one
// session get disjoint, ordered sequence numbers.
MATCH (s:Session {workspace: $workspace, name: $session})
SET s.next_seq = coalesce(s.next_seq, 0) + $count
RETURN s.next_seq - $count AS first
