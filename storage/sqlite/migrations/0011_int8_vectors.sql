-- Vectors are stored quantized from now on: a little-endian float32 scale
-- followed by one int8 per dimension (516 bytes for 512 dimensions, four
-- times smaller than the float32 BLOBs before; about seven rows per page
-- instead of one). Old float32 rows are rewritten by the running service
-- in short batches (core/vector reads both formats meanwhile); this
-- partial index lists exactly the rows still to convert, so finding them
-- never scans the table, and it is empty once they are done.
CREATE INDEX idx_embeddings_float32 ON embeddings(id) WHERE length(vector) = 4 * dimensions;
