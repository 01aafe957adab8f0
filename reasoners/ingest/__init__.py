"""Ingest: validating, embedding and storing what apps send (messages), with the jobs they cause."""
