// Each job's peer and work unit, and each work unit's key, of a workspace (tests only).
CALL () {
  MATCH (j:Job {workspace: $workspace})
  RETURN coalesce(j.peer, '') + ' ' + j.work_unit AS name
  UNION ALL
  MATCH (u:WorkUnit {workspace: $workspace})
  RETURN u.key AS name
}
RETURN name
