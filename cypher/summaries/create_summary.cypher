MATCH (session:Session {workspace: $props.workspace, name: $props.session})
CREATE (s:Summary)
SET s = $props
CREATE (s)-[:SUMMARIZES]->(session)
RETURN s.id AS id
