-- pgvector provides the vector type and the HNSW index used for chunk
-- embeddings. It must be installed on the server (see README).
CREATE EXTENSION IF NOT EXISTS vector;
