package gqlnames_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/internal/gqlnames"
)

func TestName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"id", "id"},
		{"idNEQ", "idNEQ"},
		{"ids", "ids"},
		{"conversationID", "conversationId"},
		{"conversationIDIn", "conversationIdIn"},
		{"conversationIDNotIn", "conversationIdNotIn"},
		{"retryOfIDIsNil", "retryOfIdIsNil"},
		{"clientMessageIDEqualFold", "clientMessageIdEqualFold"},
		{"sourceURI", "sourceUri"},
		{"sourceURIContainsFold", "sourceUriContainsFold"},
		{"authorIDs", "authorIds"},
		{"addAuthorIDs", "addAuthorIds"},
		{"v2ID", "v2Id"},
		{"conversationId", "conversationId"},
		{"IDENTITY", "IDENTITY"},
		{"hasIDentity", "hasIDentity"},
		{"valid", "valid"},
		{"INVALID", "INVALID"},
		{"URIs", "URIs"},
		{"clientMessageIDsx", "clientMessageIDsx"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, gqlnames.Name(tt.in))
		})
	}
}

func TestRenameLeavesNoViolations(t *testing.T) {
	s := gqlparser.MustLoadSchema(&ast.Source{Input: `
		type Query { doc(documentID: ID!): Doc }
		type Doc { id: ID! sourceURI: String! knowledgeBaseID: ID! }
		input DocWhereInput { knowledgeBaseIDIn: [ID!] userIDNEQ: String }
		enum Kind { VALID_ID }
	`})
	assert.ElementsMatch(t, []string{
		"Query.doc(documentID)", "Doc.sourceURI", "Doc.knowledgeBaseID",
		"DocWhereInput.knowledgeBaseIDIn", "DocWhereInput.userIDNEQ",
	}, gqlnames.Violations(s))

	gqlnames.Rename(s)
	assert.Empty(t, gqlnames.Violations(s))
	assert.NotNil(t, s.Types["Doc"].Fields.ForName("sourceUri"))
	assert.NotNil(t, s.Types["DocWhereInput"].Fields.ForName("knowledgeBaseIdIn"))
	assert.NotNil(t, s.Types["Query"].Fields.ForName("doc").Arguments.ForName("documentId"))
	assert.Equal(t, "VALID_ID", s.Types["Kind"].EnumValues[0].Name, "enum values keep their case")
}
