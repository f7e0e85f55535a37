// Package knowledge ingests documents into knowledge bases and retrieves
// their chunks for answering questions.
//
// Service is the write side: it creates knowledge bases, ingests documents
// (validate, chunk with internal/knowledge/chunker, embed in batches outside
// any transaction, then store the document, its grants and its chunks in one
// transaction), replaces access lists and deletes documents, writing audit
// events for the sensitive changes.
//
// Retriever is the read side and implements chat.Retriever: on PostgreSQL
// it orders chunks by pgvector cosine distance through the HNSW index, on
// SQLite it scores the chunks in Go.
//
// Every query and mutation goes through the Ent client with the caller's
// context, so the privacy policies of internal/authz apply: members only
// ever see chunks of documents their access list allows, and only curators
// (admins and agents) may write knowledge.
//
// LoadDemo provisions the built-in demo tenant and knowledge base
// (internal/knowledge/demo) on first start.
package knowledge
