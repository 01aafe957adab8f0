SHOW FULLTEXT INDEXES
YIELD name, properties, options
RETURN name, properties, options.indexConfig['fulltext.analyzer'] AS analyzer
