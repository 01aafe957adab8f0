// Benchmark only (tests/bench/api_bench.py, tests/bench/api_synthetic.py): ready-made Message
// maps in bulk, to fill large search corpora fast. Same node and edges as create_messages; the
// maps carry their own session, seq and embedding. Each session's next_seq counts its new
// messages as reserve_message_seq does (message search sizes a session's path by it).
UNWIND $messages AS props
MATCH (s:Session {workspace: $workspace, name: props.session})
MATCH (p:Peer {workspace: $workspace, name: props.peer})
CREATE (m:Message)
SET m = props
CREATE (m)-[:IN]->(s)
CREATE (m)-[:SENT_BY]->(p)
WITH s, count(m) AS added
SET s.next_seq = coalesce(s.next_seq, 0) + added
RETURN sum(added) AS created
