// $child stops being a sub-peer of $parent; its own knowledge stays where it is.
MATCH (:Peer {workspace: $workspace, name: $child})-[r:MEMBER_OF]->
      (:Peer {workspace: $workspace, name: $parent})
DELETE r
RETURN count(*) AS removed
