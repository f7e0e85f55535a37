package gqlnames_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/ent"
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

// TestWhereInputJSONTagsFollowTheConvention checks the JSON tags of the
// generated where-input structs, which ent/entc.go renames after entgql
// wrote them: a where-input marshalled in Go reads like the GraphQL input.
func TestWhereInputJSONTagsFollowTheConvention(t *testing.T) {
	types := []any{ent.AttemptWhereInput{}, ent.AuditEventWhereInput{}, ent.ConversationWhereInput{},
		ent.DocumentWhereInput{}, ent.FeedbackWhereInput{}, ent.KnowledgeBaseWhereInput{},
		ent.MessageWhereInput{}, ent.SourceWhereInput{}}
	checked := 0
	for _, v := range types {
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			checked++
			if gqlnames.Name(name) != name {
				t.Errorf("%s.%s has JSON tag %q", rt.Name(), rt.Field(i).Name, name)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d tags checked", checked)
	}
	id := uuid.New()
	b, err := json.Marshal(ent.AttemptWhereInput{ConversationIDIn: []uuid.UUID{id}})
	if err != nil || string(b) != `{"conversationIdIn":["`+id.String()+`"]}` {
		t.Errorf("marshalled %s, %v", b, err)
	}
}
