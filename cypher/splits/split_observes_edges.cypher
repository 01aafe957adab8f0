// The OBSERVES edges of the sub-peer's representations that received beliefs ($scopes: each
// {observer, observed, moved}), with their belief counts moved over from the peer's.
UNWIND $scopes AS sc
MATCH (a:Peer {workspace: $workspace, name: sc.observer})
MATCH (b:Peer {workspace: $workspace, name: sc.observed})
MATCH (fa:Peer {workspace: $workspace, name: sc.from_observer})
MATCH (fb:Peer {workspace: $workspace, name: sc.from_observed})
MERGE (a)-[n:OBSERVES]->(b)
SET n.observations = coalesce(n.observations, 0) + sc.moved
WITH fa, fb, sc
MATCH (fa)-[r:OBSERVES]->(fb)
SET r.observations = CASE WHEN coalesce(r.observations, 0) > sc.moved
                          THEN r.observations - sc.moved ELSE 0 END
RETURN count(*) AS edges
