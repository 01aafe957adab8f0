// Derived beliefs (deductive, inductive, contradiction) with their DERIVED_FROM premises. The
// provenance rules are checked here, in the write, which writes every item or none:
// - a deduction cites at least 1 premise, an induction or a contradiction at least 2 distinct;
// - every premise exists in the workspace, belongs to the same representation (scope_key) and
//   is current: neither stale, deleted nor superseded;
// - `supersedes` (a knowledge update) names a current belief of the same representation, not
//   one of the premises, no newer than the new belief (valid from its latest premise), and no
//   other item of the write names it too, neither as replaced nor as a premise;
// - its words (content_key, the deriver's normalized text, when given) are not those of a
//   current belief of the same representation and level, nor of an earlier item of the write
//   (a dream repeating an earlier dream's deduction), unless it replaces that belief.
// A new node has no incoming DERIVED_FROM edge, so its edges cannot close a cycle. The new
// belief is valid from its latest premise's valid_at. One row per item: `problem` is null when
// the item was fine (the write happened only if every problem is null).
// The representation's OBSERVES edge is only read here: the dream counts what it created when
// it finishes (finish_dream.cypher), its one write of the edge.
UNWIND $beliefs AS b
CALL (b) {
  OPTIONAL MATCH (p:Observation)
  WHERE p.id IN b.premise_ids AND p.workspace = $workspace
  // Each premise locked before its state is read: a purge tombstoning one has committed and is
  // seen, or waits for this write and then finds what it built on the premise (purge.py).
  SET p.premise_lock = true
  REMOVE p.premise_lock
  WITH b, collect(p) AS found
  OPTIONAL MATCH (old:Observation {id: b.supersedes, workspace: $workspace})
  OPTIONAL CALL (b) {
    MATCH (x:Observation)
    USING INDEX x:Observation(scope_key, content_key)
    WHERE x.scope_key = b.props.scope_key AND x.content_key = b.props.content_key
      AND x.workspace = $workspace AND x.level = b.props.level
      AND x.deleted_at IS NULL AND x.superseded_at IS NULL AND NOT coalesce(x.stale, false)
      AND x.id <> coalesce(b.supersedes, '')
    RETURN x.id AS repeated
    ORDER BY x.created_at, x.id
    LIMIT 1
  }
  WITH b, found, old, repeated,
       CASE b.props.level
         WHEN 'deductive' THEN 1 WHEN 'inductive' THEN 2 WHEN 'contradiction' THEN 2
       END AS needed,
       [id IN b.premise_ids WHERE NOT id IN [p IN found | p.id]] AS missing,
       [p IN found WHERE p.scope_key <> b.props.scope_key | p.id] AS foreign,
       [p IN found
          WHERE coalesce(p.stale, false) OR p.deleted_at IS NOT NULL
             OR p.superseded_at IS NOT NULL | p.id] AS retired
  RETURN CASE
    WHEN needed IS NULL THEN 'level ' + b.props.level + ' is not a derived level'
    WHEN repeated IS NOT NULL
      THEN 'belief ' + repeated + ' already says this (current, same level)'
    WHEN size(missing) > 0
      THEN 'premises not found in this workspace: '
           + reduce(s = '', id IN missing | s + CASE WHEN s = '' THEN '' ELSE ', ' END + id)
    WHEN size(found) < needed
      THEN 'a ' + b.props.level + ' belief needs at least ' + toString(needed)
           + ' distinct premises, got ' + toString(size(found))
    WHEN size(foreign) > 0
      THEN 'premises from another representation: '
           + reduce(s = '', id IN foreign | s + CASE WHEN s = '' THEN '' ELSE ', ' END + id)
    WHEN size(retired) > 0
      THEN 'premises that are stale, deleted or superseded: '
           + reduce(s = '', id IN retired | s + CASE WHEN s = '' THEN '' ELSE ', ' END + id)
    WHEN b.supersedes IS NULL THEN null
    WHEN old IS NULL THEN 'no belief ' + b.supersedes + ' to supersede in this workspace'
    WHEN old.scope_key <> b.props.scope_key
      THEN 'belief ' + b.supersedes + ' belongs to another representation'
    WHEN old.superseded_at IS NOT NULL OR old.deleted_at IS NOT NULL
         OR coalesce(old.stale, false)
      THEN 'belief ' + b.supersedes + ' is not current'
    WHEN b.supersedes IN b.premise_ids
      THEN 'belief ' + b.supersedes + ' cannot be both a premise and superseded'
    WHEN size([x IN $beliefs WHERE b.supersedes IN x.premise_ids]) > 0
      THEN 'belief ' + b.supersedes + ' is superseded by one item and a premise of another'
    WHEN coalesce(old.valid_at, old.created_at)
         > reduce(latest = null, p IN found |
             CASE WHEN latest IS NULL OR coalesce(p.valid_at, p.created_at) > latest
                  THEN coalesce(p.valid_at, p.created_at) ELSE latest END)
      THEN 'belief ' + b.supersedes + ' is newer than the premises of the belief that would '
           + 'replace it'
    WHEN size([x IN $beliefs WHERE x.supersedes = b.supersedes]) > 1
      THEN 'belief ' + b.supersedes + ' is superseded twice in one write'
  END AS problem
}
WITH collect({b: b, problem: problem}) AS items
// An item that says what an earlier, sound item of the write says is a repeat of it (an earlier
// item refused on its own account leaves the later one standing).
WITH [i IN range(0, size(items) - 1) |
      {b: items[i].b,
       problem: coalesce(items[i].problem,
                         'belief ' + [j IN range(0, i - 1)
                                      WHERE items[j].problem IS NULL
                                        AND items[j].b.props.content_key IS NOT NULL
                                        AND items[j].b.props.content_key
                                            = items[i].b.props.content_key
                                        AND items[j].b.props.level = items[i].b.props.level
                                      | items[j].b.props.id][0]
                         + ' of this write already says this')}] AS checked
WITH checked, [c IN checked WHERE c.problem IS NOT NULL] AS rejected
CALL (checked, rejected) {
  WITH checked WHERE size(rejected) = 0
  UNWIND checked AS c
  WITH c.b AS b
  MATCH (:Peer {workspace: $workspace, name: b.props.observer})
        -[:OBSERVES]->(:Peer {workspace: $workspace, name: b.props.observed})
  CREATE (o:Observation)
  SET o = b.props
  WITH b, o
  CALL (b, o) {
    MATCH (p:Observation)
    WHERE p.id IN b.premise_ids AND p.workspace = $workspace
    CREATE (o)-[:DERIVED_FROM]->(p)
    RETURN max(coalesce(p.valid_at, p.created_at)) AS valid_at,
           collect(p {.id, .level, .content}) AS premises
  }
  SET o.valid_at = valid_at
  WITH b, o, premises
  OPTIONAL CALL (b, o) {
    MATCH (old:Observation {id: b.supersedes, workspace: $workspace})
    CREATE (o)-[:SUPERSEDES {at: $now, origin: b.props.origin}]->(old)
    SET old.superseded_at = $now
    RETURN old {.id, .level, .content} AS replaced
  }
  RETURN collect({id: o.id, premises: premises, replaced: replaced}) AS written
}
RETURN [c IN checked | {id: c.b.props.id, problem: c.problem}] AS items, written
