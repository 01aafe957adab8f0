"""Pure text helpers shared by the reasoners: sentence splitting, span matching, transcripts."""
