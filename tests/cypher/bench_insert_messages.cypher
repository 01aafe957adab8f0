// Benchmark only (tests/bench/api_bench.py): the plainest insert of ready-made Message maps,
// the addMessages baseline (search corpora are filled by bench_fill_messages). Same node and
// edges as create_messages, but no validation, no seq reservation and no membership windows;
// each map carries its own session, and `$messages` must already hold embeddings.
UNWIND $messages AS props
MATCH (s:Session {workspace: $workspace, name: props.session})
MATCH (p:Peer {workspace: $workspace, name: props.peer})
CREATE (m:Message)
SET m = props
CREATE (m)-[:IN]->(s)
CREATE (m)-[:SENT_BY]->(p)
RETURN count(m) AS created
