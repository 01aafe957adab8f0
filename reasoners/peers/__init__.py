"""Peer-level capabilities: files (chunking, writes, search) and peer cards as files."""
