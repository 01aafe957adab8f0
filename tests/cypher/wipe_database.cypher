// Tests only: every node and relationship goes, in batches. The managed test instance keeps its
// data between sessions; conftest.py empties it as a session starts, so no test sees another
// session's leftovers (the warm-up reads the whole database's largest scopes).
MATCH (n)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 5000 ROWS
