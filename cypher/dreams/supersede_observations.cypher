// Knowledge updates between existing beliefs of one representation ($scope): `new` replaces
// `old`. Checked here, all or nothing: both exist in the representation, both are current
// (neither stale, deleted nor superseded), they differ, the new one does not rest on the old
// (a deduction from it would leave neither current), the new one is not older (each side's
// latest statement: valid_at, or a later live message that repeated it; else created_at: a
// Lisbon of January said again in June is not replaced by a Berlin of March), no belief is
// replaced twice, and no belief both replaces and is replaced in one write. The old belief
// keeps its content and its edges; it gets superseded_at and
// leaves default reads (asOf brings it back). No SUPERSEDES cycle can form: only a current
// belief is replaced, only by another current one, and a replaced one never replaces again.
UNWIND $updates AS u
OPTIONAL MATCH (new:Observation {id: u.new_id, workspace: $workspace})
OPTIONAL MATCH (old:Observation {id: u.old_id, workspace: $workspace})
WITH u, new, old, coalesce(new.valid_at, new.created_at) AS first_stated,
     COLLECT { MATCH (new)-[:DERIVED_FROM]->(m:Message) WHERE m.deleted_at IS NULL
               RETURN m.created_at ORDER BY m.created_at DESC LIMIT 1 }[0] AS restated,
     coalesce(old.valid_at, old.created_at) AS old_first,
     COLLECT { MATCH (old)-[:DERIVED_FROM]->(m:Message) WHERE m.deleted_at IS NULL
               RETURN m.created_at ORDER BY m.created_at DESC LIMIT 1 }[0] AS old_restated
WITH u, new, old, CASE
  WHEN new IS NULL THEN 'no belief ' + u.new_id + ' in this workspace'
  WHEN old IS NULL THEN 'no belief ' + u.old_id + ' in this workspace'
  WHEN u.new_id = u.old_id THEN 'a belief cannot supersede itself'
  WHEN new.scope_key <> $scope OR old.scope_key <> $scope
    THEN 'beliefs ' + u.old_id + ' and ' + u.new_id + ' must both belong to this representation'
  WHEN size([x IN $updates WHERE x.old_id = u.old_id]) > 1
    THEN 'belief ' + u.old_id + ' is superseded twice in one write'
  WHEN size([x IN $updates WHERE x.old_id = u.new_id]) > 0
    THEN 'belief ' + u.new_id + ' is superseded in the same write that makes it replace another'
  WHEN old.superseded_at IS NOT NULL OR old.deleted_at IS NOT NULL OR coalesce(old.stale, false)
    THEN 'belief ' + u.old_id + ' is not current'
  WHEN new.superseded_at IS NOT NULL OR new.deleted_at IS NOT NULL OR coalesce(new.stale, false)
    THEN 'belief ' + u.new_id + ' is not current'
  WHEN EXISTS { (new)-[:DERIVED_FROM*1..64]->(old) }
    THEN 'belief ' + u.new_id + ' rests on belief ' + u.old_id + ': it cannot replace it'
  WHEN CASE WHEN restated > first_stated THEN restated ELSE first_stated END
       < CASE WHEN old_restated > old_first THEN old_restated ELSE old_first END
    THEN 'belief ' + u.new_id + ' was last stated before belief ' + u.old_id
         + ', which it would replace'
END AS problem
WITH collect({u: u, new: new, old: old, problem: problem}) AS checked
WITH checked, [c IN checked WHERE c.problem IS NOT NULL] AS rejected
CALL (checked, rejected) {
  WITH checked WHERE size(rejected) = 0
  UNWIND checked AS c
  WITH c.new AS new, c.old AS old
  CREATE (new)-[:SUPERSEDES {at: $now, origin: $origin}]->(old)
  SET old.superseded_at = $now
  RETURN collect({old: old {.id, .level, .content}, new: new {.id, .level, .content}}) AS written
}
RETURN [c IN checked | {id: c.u.old_id, problem: c.problem}] AS items, written
