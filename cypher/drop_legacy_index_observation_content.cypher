// Replaced by observation_text (content plus scope_key).
DROP INDEX observation_content IF EXISTS
