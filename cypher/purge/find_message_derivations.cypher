// Everything derived from the given messages (tombstoned ones included): the explicit beliefs
// taken from any of them and, through incoming DERIVED_FROM, every belief built on those, up to
// 64 derivation levels (the bound of staleness propagation). Breadth-first with a visited set
// (`WITH DISTINCT d`), so the cost follows what is found. Each comes with its premises, so the
// purge can delete dependents before what they rest on.
// A belief deleted or corrected away before the purge, or a correction (its words are the
// app's), that a live message outside the purge also supports is kept, not erased: its links
// to the purged messages go with them (delete_messages_hard.cypher). Erased, a tombstone let
// that message, derived again, bring the deleted fact back. `purging` marks what this purge
// tombstoned itself (tombstone_purged.cypher), which stays in the plan.
MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids
MATCH (root:Observation)-[:DERIVED_FROM]->(m)
WITH DISTINCT root
WHERE NOT (root.purging IS NULL
           AND (root.deleted_at IS NOT NULL OR root.superseded_at IS NOT NULL
                OR root.origin = 'correction')
           AND EXISTS { (root)-[:DERIVED_FROM]->(other:Message)
                        WHERE other.deleted_at IS NULL AND NOT other.id IN $ids })
MATCH (root)<-[:DERIVED_FROM*0..64]-(d:Observation)
WITH DISTINCT d
WHERE d.workspace = $workspace
RETURN d.id AS id, d.level AS level, d.observer AS observer, d.observed AS observed,
       [(d)-[:DERIVED_FROM]->(p:Observation) | p.id] AS premises
