// A vector index over one scope's label. The procedure (deprecated in 5.x in favour of CREATE
// VECTOR INDEX) is used because it takes the label as a parameter; CREATE VECTOR INDEX needs
// it written into the statement text.
CALL db.index.vector.createNodeIndex($index, $label, 'embedding', $dimensions, 'cosine')
