// Derived beliefs of one representation ($scope) that no longer hold: marked stale with the
// reason, never deleted. Checked here, all or nothing: each exists in the representation, is a
// deduction, induction or contradiction (explicit facts are evidence, not conclusions), and is
// current.
UNWIND $prunes AS p
OPTIONAL MATCH (o:Observation {id: p.id, workspace: $workspace})
WITH p, o, CASE
  WHEN o IS NULL THEN 'no belief ' + p.id + ' in this workspace'
  WHEN o.scope_key <> $scope THEN 'belief ' + p.id + ' belongs to another representation'
  WHEN o.level = 'explicit' THEN 'belief ' + p.id + ' is an explicit fact; only derived beliefs are pruned'
  WHEN o.superseded_at IS NOT NULL OR o.deleted_at IS NOT NULL OR coalesce(o.stale, false)
    THEN 'belief ' + p.id + ' is not current'
END AS problem
WITH collect({p: p, o: o, problem: problem}) AS checked
WITH checked, [c IN checked WHERE c.problem IS NOT NULL] AS rejected
CALL (checked, rejected) {
  WITH checked WHERE size(rejected) = 0
  UNWIND checked AS c
  WITH c.o AS o, c.p AS p
  SET o.stale = true, o.stale_reason = p.reason
  RETURN collect({id: o.id, level: o.level, content: o.content, reason: p.reason}) AS written
}
RETURN [c IN checked | {id: c.p.id, problem: c.problem}] AS items, written
