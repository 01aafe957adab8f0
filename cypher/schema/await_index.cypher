CALL db.awaitIndex($name, $timeout_seconds)
