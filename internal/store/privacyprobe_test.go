package store_test

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
)

// entityProbe exercises every way of touching one row of one entity.
type entityProbe struct {
	name string
	id   func(fixture) uuid.UUID
	// node reports whether the entity is a GraphQL node.
	node       bool
	get        func(context.Context, *ent.Client, uuid.UUID) error
	count      func(context.Context, *ent.Client, uuid.UUID) (int, error)
	listHas    func(context.Context, *ent.Client, uuid.UUID) (bool, error)
	updateOne  func(context.Context, *ent.Client, uuid.UUID) error
	updateMany func(context.Context, *ent.Client, uuid.UUID) (int, error)
	deleteOne  func(context.Context, *ent.Client, uuid.UUID) error
	deleteMany func(context.Context, *ent.Client, uuid.UUID) (int, error)
}

func contains(ids []uuid.UUID, id uuid.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// probes lists one probe per tenant-scoped entity. Each update changes a
// real column.
var probes = []entityProbe{
	{
		name: "KnowledgeBase", id: func(f fixture) uuid.UUID { return f.KBA }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.KnowledgeBase.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.KnowledgeBase.Query().Where(knowledgebase.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.KnowledgeBase.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.KnowledgeBase.UpdateOneID(id).SetName("pwned").Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.KnowledgeBase.Update().Where(knowledgebase.ID(id)).SetName("pwned").Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.KnowledgeBase.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.KnowledgeBase.Delete().Where(knowledgebase.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Document", id: func(f fixture) uuid.UUID { return f.DocOpsA }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Document.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Document.Query().Where(document.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Document.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Document.UpdateOneID(id).SetVisibility(document.VisibilityTENANT).Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Document.Update().Where(document.ID(id)).SetVisibility(document.VisibilityTENANT).Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Document.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Document.Delete().Where(document.ID(id)).Exec(ctx)
		},
	},
	{
		name: "DocumentGrant", id: func(f fixture) uuid.UUID { return f.GrantOpsA },
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.DocumentGrant.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.DocumentGrant.Query().Where(documentgrant.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.DocumentGrant.Query().IDs(ctx)
			return contains(ids, id), err
		},
		// Grants are immutable; the update path is exercised through the
		// tenant_id-free Update builder with no fields (a no-op update
		// still has to find the row).
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.DocumentGrant.UpdateOneID(id).Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.DocumentGrant.Update().Where(documentgrant.ID(id)).Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.DocumentGrant.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.DocumentGrant.Delete().Where(documentgrant.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Chunk", id: func(f fixture) uuid.UUID { return f.ChunkOpsA },
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Chunk.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Chunk.Query().Where(chunk.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Chunk.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Chunk.UpdateOneID(id).SetContent("pwned").Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Chunk.Update().Where(chunk.ID(id)).SetContent("pwned").Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error { return c.Chunk.DeleteOneID(id).Exec(ctx) },
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Chunk.Delete().Where(chunk.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Conversation", id: func(f fixture) uuid.UUID { return f.ConvAlice }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Conversation.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Conversation.Query().Where(conversation.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Conversation.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Conversation.UpdateOneID(id).SetTitle("pwned").Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Conversation.Update().Where(conversation.ID(id)).SetTitle("pwned").Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Conversation.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Conversation.Delete().Where(conversation.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Message", id: func(f fixture) uuid.UUID { return f.MsgAlice }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Message.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Message.Query().Where(message.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Message.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Message.UpdateOneID(id).SetModel("pwned").Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Message.Update().Where(message.ID(id)).SetModel("pwned").Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Message.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Message.Delete().Where(message.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Attempt", id: func(f fixture) uuid.UUID { return f.AttemptAlice }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Attempt.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Attempt.Query().Where(attempt.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Attempt.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Attempt.UpdateOneID(id).SetAnswer("pwned").Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Attempt.Update().Where(attempt.ID(id)).SetAnswer("pwned").Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Attempt.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Attempt.Delete().Where(attempt.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Source", id: func(f fixture) uuid.UUID { return f.SourceAlice }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Source.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Source.Query().Where(source.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Source.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Source.UpdateOneID(id).ClearChunkID().Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Source.Update().Where(source.ID(id)).ClearChunkID().Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Source.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Source.Delete().Where(source.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Feedback", id: func(f fixture) uuid.UUID { return f.FeedbackAlice }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Feedback.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Feedback.Query().Where(feedback.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Feedback.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Feedback.UpdateOneID(id).SetRating(feedback.RatingDOWN).Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Feedback.Update().Where(feedback.ID(id)).SetRating(feedback.RatingDOWN).Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Feedback.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Feedback.Delete().Where(feedback.ID(id)).Exec(ctx)
		},
	},
	{
		name: "Attachment", id: func(f fixture) uuid.UUID { return f.AttachmentAlice }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.Attachment.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Attachment.Query().Where(attachment.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.Attachment.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Attachment.UpdateOneID(id).SetStatus(attachment.StatusFAILED).Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Attachment.Update().Where(attachment.ID(id)).SetStatus(attachment.StatusFAILED).Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.Attachment.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.Attachment.Delete().Where(attachment.ID(id)).Exec(ctx)
		},
	},
	{
		name: "AuditEvent", id: func(f fixture) uuid.UUID { return f.AuditA }, node: true,
		get: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			_, err := c.AuditEvent.Get(ctx, id)
			return err
		},
		count: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.AuditEvent.Query().Where(auditevent.ID(id)).Count(ctx)
		},
		listHas: func(ctx context.Context, c *ent.Client, id uuid.UUID) (bool, error) {
			ids, err := c.AuditEvent.Query().IDs(ctx)
			return contains(ids, id), err
		},
		updateOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.AuditEvent.UpdateOneID(id).Exec(ctx)
		},
		updateMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.AuditEvent.Update().Where(auditevent.ID(id)).Save(ctx)
		},
		deleteOne: func(ctx context.Context, c *ent.Client, id uuid.UUID) error {
			return c.AuditEvent.DeleteOneID(id).Exec(ctx)
		},
		deleteMany: func(ctx context.Context, c *ent.Client, id uuid.UUID) (int, error) {
			return c.AuditEvent.Delete().Where(auditevent.ID(id)).Exec(ctx)
		},
	},
}
