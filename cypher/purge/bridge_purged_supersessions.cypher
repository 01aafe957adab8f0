// Before a purge erases beliefs ($ids), a belief that replaced one of them goes on replacing
// what that one replaced, through any run of erased beliefs: Madrid replaced Berlin, which
// replaced Lisbon; with Berlin erased, Madrid replaces Lisbon (at its own edge's time, with its
// origin), so that deleting Madrid later brings Lisbon back, as it would with Berlin left.
// From the erased beliefs, by their ids (a planner without statistics, on a new store, began
// from every belief instead).
MATCH (g:Observation)
USING INDEX g:Observation(id)
WHERE g.id IN $ids AND g.workspace = $workspace
MATCH p = (n:Observation)-[first:SUPERSEDES]->(g)-[:SUPERSEDES]->{1,64}(old:Observation)
WHERE NOT n.id IN $ids AND NOT old.id IN $ids
  AND all(x IN nodes(p)[1..-1] WHERE x.id IN $ids)
  AND NOT EXISTS { (n)-[:SUPERSEDES]->(old) }
// One edge however many runs lead from n to old.
WITH n, old, min(first.at) AS at, head(collect(first.origin)) AS origin
CREATE (n)-[:SUPERSEDES {at: at, origin: origin}]->(old)
RETURN count(*) AS bridged
