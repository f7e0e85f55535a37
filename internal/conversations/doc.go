// Package conversations holds the rules of conversation rows that more
// than one service applies: which conversation (or attempt) a viewer may
// use (Load, LoadOwn, LoadOwnAttempt, over authz's liveness), whether it
// accepts new questions (CheckOpen), the expiries of a new one (Create,
// TemporaryExpiry), the knowledge base it searches (KnowledgeBase) and
// the write of a copied message tree (TreeRows); the audit of the changes
// made to it is internal/audit's. The engine (internal/chat), forks,
// imports and feedback call these; nothing here publishes events or runs
// answers.
//
// Every function reads and writes through the Ent client it is given, with
// the viewer in ctx, so the privacy rules (internal/authz) filter every
// row: another tenant's or user's conversation is simply not found.
package conversations
