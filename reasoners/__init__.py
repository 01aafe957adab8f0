"""Reasoning, one package per capability: ingest, queue, deriver, summarizer, search, context,
dialectic, and the LLM and embedding models they use."""
