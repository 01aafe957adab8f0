// Beliefs built on the given ones (through incoming DERIVED_FROM, up to 64 levels) that are not
// among them: written while the purge read its plan, before it tombstoned their premises (a
// tombstoned premise takes no new belief, a dream's write locking its premises before it
// checks them, so once this finds none, none can come). Rows as
// find_message_derivations.cypher's, for the purge to erase them with the rest.
MATCH (o:Observation {workspace: $workspace})
WHERE o.id IN $ids
MATCH (o)<-[:DERIVED_FROM*1..64]-(d:Observation)
WITH DISTINCT d
WHERE d.workspace = $workspace AND NOT d.id IN $ids
RETURN d.id AS id, d.level AS level, d.observer AS observer, d.observed AS observed,
       [(d)-[:DERIVED_FROM]->(p:Observation) | p.id] AS premises
