// Beliefs of a workspace that lost what they rest on (tests only): an explicit fact with no
// source message, a deduction with no premise, an induction or contradiction with fewer than two.
MATCH (o:Observation {workspace: $workspace})
WITH o,
     COUNT { (o)-[:DERIVED_FROM]->(:Message) } AS sources,
     COUNT { (o)-[:DERIVED_FROM]->(:Observation) } AS premises
WHERE (o.level = 'explicit' AND sources = 0)
   OR (o.level = 'deductive' AND premises < 1)
   OR (o.level IN ['inductive', 'contradiction'] AND premises < 2)
RETURN count(o) AS unsupported
