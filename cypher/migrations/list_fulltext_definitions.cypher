// The named fulltext indexes as they stand: their properties and analyzer, so an upgrade
// rebuilds only those still in an earlier form.
SHOW FULLTEXT INDEXES
YIELD name, properties, options
WHERE name IN $names
RETURN name, properties, options.indexConfig['fulltext.analyzer'] AS analyzer
