// The files a purged peer still has, or cards it wrote of others: read under the peer's lock
// before the peer is deleted, so a file written while the purge ran is erased, not orphaned.
OPTIONAL MATCH (f:File {workspace: $workspace})
WHERE f.peer = $peer OR f.card_observer = $peer
RETURN count(f) AS files
