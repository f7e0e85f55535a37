// Package portability moves conversations in and out of ragchat
// (docs/API.md, "Export and import"; internal/portability/README.md).
//
// Export gives the owner, and only the owner, the whole conversation: its
// metadata (title, times, status, history strategy, knowledge base, current
// leaf), every message of every branch in sequence order with its parent,
// and the attempts of each question with their sources as they are
// authorised now. A source whose document the owner can no longer read
// (revoked or deleted) keeps its label, rank and score and is marked
// unavailable, without its snippet, title or document id, exactly as
// Attempt.sources shows it. Nothing the owner cannot read through the API
// is exported (no trace ids, no prompt manifests). Two formats:
//
//   - JSON (FormatJSON): one Document, versioned "ragchat.conversation/v1",
//     written compactly on one line.
//   - Markdown (FormatMarkdown): the current branch as a readable
//     transcript with each answer's sources, then every other branch once,
//     each under a heading that names the message it follows.
//
// A DELETED, expired, foreign or unknown conversation is NOT_FOUND with
// the same error; a temporary one is refused (BAD_USER_INPUT, field "id"):
// temporary chats are never exported.
//
// The bulk export (WriteJSONL, served at GET /export/conversations.jsonl)
// streams the JSON Document of each of the viewer's own conversations,
// one per line, oldest first, skipping DELETED and temporary ones. It
// pages through conversations and through each conversation's messages,
// so memory stays bounded by a page whatever the account's size, flushes
// after each conversation, and stops as soon as the request's context
// ends.
//
// Import (Service.Import) reads our own JSON back (one Document, an array
// of them, or JSON Lines as the bulk export writes) or ChatGPT's
// conversations.json (an array of conversations whose mapping holds the
// message tree as parent and children links). Either becomes a list of
// importConv: a tree with fresh ids (parents remapped), which
// the service writes as new conversations of the viewer in one
// transaction, all or nothing, with depths, gap-free sequence numbers and
// the current leaf (Service.write). Imported answers get
// a COMPLETED attempt without sources whose manifest says imported. The
// first bad record is named in a BAD_USER_INPUT error
// (extensions.field, e.g. "conversations[3].mapping.<node id>"), and
// nothing is written; the size of the content, the number of
// conversations and the messages per conversation are bounded (Limits,
// extensions.limit), and so is the text an import stores, per message
// and in all, counted while the content is parsed (budget.go), before
// any of it is written. An import is admitted before its content is read
// (importadmit.go): one of the instance's few running slots, one import
// of the user's rate (metered in the database, so across replicas), and
// a deadline that cancels it. A clientRequestId makes an import
// idempotent: the ids of what it writes derive from the viewer and the
// key, so a replay returns the same conversations and a concurrent
// duplicate cannot write twice.
//
// ChatGPT's tree is mapped onto ours: only user and assistant messages
// with text are kept; system, tool and hidden nodes and nodes without
// text (images, code runs) are skipped and their children follow the
// nearest kept ancestor. An answer that follows another answer (a tool
// call between them was skipped) is appended to it, separated by a blank
// line, when it is its only continuation; when the earlier answer has
// other continuations, the later one becomes an alternative answer to the
// same question with its own text only (copying the earlier text in front
// of every alternative would store text growing with the square of the
// input). An answer with no question before it is dropped. Two
// questions in a row stay two questions, as after an answer that failed.
// Each node is visited once, without recursion, so the time and the text
// stored are linear in the content.
package portability
