"""The durable work queue's runtime: which jobs new data causes, and the worker that runs them."""
