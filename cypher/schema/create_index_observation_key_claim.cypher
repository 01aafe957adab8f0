// The zero-key dreamer finds the opposite of a claim ("eats meat" / "doesn't eat meat") in a
// representation by (scope_key, claim_key).
CREATE INDEX observation_key_claim IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.claim_key)
