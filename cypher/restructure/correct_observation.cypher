// A correction: a new version ($props) of a current belief supersedes it (SUPERSEDES edge,
// superseded_at on the old one), with the old belief's sources and premises, so its
// provenance stays. The old belief keeps its content and history. `problem` is set, and
// nothing written, when the belief does not exist, is not current, already says this, or
// quotes a message edited or deleted since it was derived.
// The representation's OBSERVES edge counts the new version, and, for an explicit belief, the
// write (get_view_writes.cypher; the new version keeps it as its view_write), so a derivation
// writing the same fact at once sees it. The edge is written first, as a derivation writes it
// before the beliefs it derives again: both take the two locks in the same order.
OPTIONAL MATCH (old:Observation {id: $id, workspace: $workspace})
WITH old, CASE
  WHEN old IS NULL THEN 'not_found'
  WHEN old.deleted_at IS NOT NULL OR old.superseded_at IS NOT NULL
    THEN 'observation ' + $id + ' is deleted or already superseded: correct its latest version'
  WHEN old.content_key = $props.content_key
    THEN 'the correction says the same as observation ' + $id
  // Its quotes of a message edited or deleted since would pass to the new version, current,
  // serving words the message no longer holds; it is derived again from what the message says.
  WHEN EXISTS { MATCH (old)-[:DERIVED_FROM]->(m:Message)
                WHERE m.deleted_at IS NOT NULL OR m.edited_at > old.created_at }
    THEN 'observation ' + $id + ' quotes a message edited or deleted since: it is derived '
         + 'again from what the message says now; correct that version'
END AS problem
OPTIONAL CALL (old, problem) {
  WITH old WHERE problem IS NULL
  OPTIONAL MATCH (:Peer {workspace: $workspace, name: old.observer})
                 -[r:OBSERVES]->(:Peer {workspace: $workspace, name: old.observed})
  SET r.observations = coalesce(r.observations, 0) + 1,
      r.writes = coalesce(r.writes, 0) + CASE WHEN old.level = 'explicit' THEN 1 ELSE 0 END
  WITH old, r
  CREATE (new:Observation)
  SET new = $props,
      new.view_write = CASE WHEN old.level = 'explicit' THEN r.writes END
  CREATE (new)-[:SUPERSEDES {at: $now, origin: 'correction'}]->(old)
  SET old.superseded_at = $now
  WITH old, new
  CALL (old, new) {
    MATCH (old)-[d:DERIVED_FROM]->(source)
    WHERE source.workspace = $workspace
    CREATE (new)-[c:DERIVED_FROM]->(source)
    SET c = properties(d)
    RETURN count(c) AS copied
  }
  RETURN new.id AS created
}
RETURN problem, created, old {.id, .observer, .observed, .level} AS old
