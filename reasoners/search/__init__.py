"""Hybrid retrieval: vector and fulltext candidates fused into one ranking, for every node kind."""
