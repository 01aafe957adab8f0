MATCH (f:File {workspace: $workspace, peer: $peer, path: $path})
RETURN f {.*, card_entries: null, card_support: null} AS file
