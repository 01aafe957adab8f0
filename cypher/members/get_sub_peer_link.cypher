// Whether $child is a sub-peer of $parent already (`existed`), or which of the two does not
// exist (`missing`, the parent first).
OPTIONAL MATCH (parent:Peer {workspace: $workspace, name: $parent})
OPTIONAL MATCH (child:Peer {workspace: $workspace, name: $child})
RETURN CASE WHEN parent IS NULL THEN $parent WHEN child IS NULL THEN $child END AS missing,
       parent IS NOT NULL AND child IS NOT NULL
         AND EXISTS { (child)-[:MEMBER_OF]->(parent) } AS existed
