// The peer card a dream leaves. Checked here, all or nothing: every line the dream wrote cites
// at least one observation, and every cited one is a current belief of this representation
// ($scope); a line without support (`own`) must be one the app wrote itself and is kept as is.
// App lines written while the dream ran (it read the card before) are kept too, after its own.
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
WITH r, [i IN range(0, size(coalesce(r.card, [])) - 1)
           WHERE coalesce(r.card_support[i], '') = '' | r.card[i]] AS app_lines
CALL (app_lines) {
  UNWIND range(0, size($lines) - 1) AS index
  WITH index, $lines[index] AS line
  CALL (line) {
    OPTIONAL MATCH (o:Observation)
    WHERE o.id IN line.support AND o.workspace = $workspace AND o.scope_key = $scope
      AND o.deleted_at IS NULL AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
    RETURN count(o) AS current
  }
  RETURN collect({index: index, line: line, problem: CASE
    WHEN line.own AND NOT line.text IN app_lines
      THEN 'card line ' + toString(index) + ' has no support and is not a line the app wrote'
    WHEN line.own THEN null
    WHEN current < size(line.support)
      THEN 'card line ' + toString(index) + ' cites observations that are not current '
           + 'beliefs of this representation'
  END}) AS checked
}
WITH r, app_lines, checked, [c IN checked WHERE c.problem IS NOT NULL] AS rejected
CALL (r, app_lines, checked, rejected) {
  WITH r, app_lines, checked WHERE size(rejected) = 0
  WITH r, checked,
       [l IN app_lines WHERE NOT l IN [c IN checked WHERE c.line.own | c.line.text]] AS added
  SET r.card = [c IN checked | c.line.text] + added,
      r.card_support = [c IN checked | c.line.joined] + [l IN added | ''],
      r.card_updated_at = $now
  RETURN count(*) AS written
}
RETURN [c IN checked | {id: toString(c.index), problem: c.problem}] AS items, written > 0 AS written
