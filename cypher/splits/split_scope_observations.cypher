// Up to $batch beliefs taken in the given sessions move from the peer's representations to
// its sub-peer's ($moves: old scope_key -> new observer, observed and scope_key). Beliefs
// without a session (derived ones) stay; the caller marks what was derived from moved ones
// stale. Returns the moved beliefs with their new scope_key and the one they left.
UNWIND $moves AS mv
CALL (mv) {
  MATCH (o:Observation)
  USING INDEX o:Observation(scope_key)
  WHERE o.scope_key = mv.from_scope AND o.workspace = $workspace AND o.session IN $sessions
  RETURN o
  LIMIT $batch
}
WITH o, mv
LIMIT $batch
// Counted by the edge it left (dream_counted): the sub-peer's count never counted it.
SET o.observer = mv.observer, o.observed = mv.observed, o.scope_key = mv.scope
REMOVE o.dream_counted
RETURN collect({id: o.id, scope: mv.scope, from: mv.from_scope}) AS moved
