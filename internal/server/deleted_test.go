package server_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestSoftDeletedConversationIsGoneEverywhere: once a conversation is
// soft-deleted, node(id) of its messages and attempts is NOT_FOUND for its
// owner too, until it is restored.
func TestSoftDeletedConversationIsGoneEverywhere(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	conv := servertest.CreateConversation(t, c)
	attempt := servertest.Ask(t, c, conv, "上传文件最大是多少？")
	servertest.WaitDone(t, c, attempt)
	nodeQuery := `query($id: ID!) { node(id: $id) { id } }`

	var before struct{ Node *struct{ ID string } }
	servertest.MustDo(t, c, nodeQuery, map[string]any{"id": attempt}, &before)
	if before.Node == nil {
		t.Fatal("the attempt is visible before the delete")
	}
	servertest.MustDo(t, c, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": conv}, nil)
	for _, id := range []string{conv, attempt} {
		if code, _ := servertest.ErrorCode(t, c, nodeQuery, map[string]any{"id": id}); code != "NOT_FOUND" {
			t.Errorf("node(%s) after delete: %q, want NOT_FOUND", id, code)
		}
	}
	servertest.MustDo(t, c, `mutation($c: ID!) { restoreConversation(id: $c) { id } }`, map[string]any{"c": conv}, nil)
	var after struct{ Node *struct{ ID string } }
	servertest.MustDo(t, c, nodeQuery, map[string]any{"id": attempt}, &after)
	if after.Node == nil {
		t.Fatal("the attempt is visible again after restore")
	}
}
