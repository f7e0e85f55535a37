package knowledge_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

func TestLoadDemo(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		emb := offline.New(offline.Options{})
		svc := knowledge.NewService(db.Client, emb, nil, knowledge.Options{})
		ctx := context.Background()

		// A failed load leaves nothing half-done behind.
		broken := knowledge.NewService(db.Client, &hookEmbedder{Embedder: emb, before: func(context.Context) error {
			return llm.Errorf(llm.KindUnavailable, "down")
		}}, nil, knowledge.Options{})
		created, err := knowledge.LoadDemo(ctx, db.Client, broken)
		requireCode(t, err, domain.CodeModelUnavailable)
		assert.False(t, created)

		created, err = knowledge.LoadDemo(ctx, db.Client, svc)
		require.NoError(t, err)
		assert.True(t, created, "the first successful load creates the demo")
		created, err = knowledge.LoadDemo(ctx, db.Client, svc)
		require.NoError(t, err)
		assert.False(t, created, "the second load finds it")

		sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
		tenant, err := db.Client.Tenant.Get(sys, demo.TenantID)
		require.NoError(t, err)
		assert.Equal(t, demo.TenantName, tenant.Name)
		assert.Equal(t, domain.DefaultTenantSettings(), tenant.Settings)

		admin := &viewer.Viewer{TenantID: demo.TenantID, UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}
		kbs, err := db.Client.KnowledgeBase.Query().Where(knowledgebase.Name(demo.KnowledgeBaseName)).All(as(admin))
		require.NoError(t, err)
		require.Len(t, kbs, 1)
		kb := kbs[0]
		assert.Equal(t, emb.EmbeddingModel(), kb.EmbeddingModel)

		docs, err := db.Client.Document.Query().Where(document.KnowledgeBaseID(kb.ID)).WithGrants().All(as(admin))
		require.NoError(t, err)
		require.Len(t, docs, len(demo.Documents()))
		byURI := map[string]int{}
		for _, d := range docs {
			byURI[d.SourceURI]++
		}
		for _, d := range demo.Documents() {
			assert.Equal(t, 1, byURI[d.SourceURI], d.Path)
		}
		for _, d := range docs {
			if d.SourceURI != "https://wiki.example.com/ops/upload-runbook" {
				assert.Equal(t, document.VisibilityTENANT, d.Visibility, d.Title)
				assert.Empty(t, d.Edges.Grants)
				continue
			}
			assert.Equal(t, document.VisibilityRESTRICTED, d.Visibility)
			require.Len(t, d.Edges.Grants, 1)
			assert.Equal(t, documentgrant.PrincipalKindGROUP, d.Edges.Grants[0].PrincipalKind)
			assert.Equal(t, demo.OpsGroup, d.Edges.Grants[0].Principal)
		}

		e := &env{db: db, emb: emb, svc: svc, ret: knowledge.NewRetriever(db, knowledge.RetrieverOptions{})}
		member := &viewer.Viewer{TenantID: demo.TenantID, UserID: "u1", Roles: []viewer.Role{viewer.RoleMember}}
		opsMember := &viewer.Viewer{TenantID: demo.TenantID, UserID: "u2", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{demo.OpsGroup}}
		assert.False(t, mentions(e.ask(t, member, kb.ID, opsQuestion, 150), opsPhone))
		assert.True(t, mentions(e.ask(t, opsMember, kb.ID, opsQuestion, 3), opsPhone))
		assert.True(t, mentions(e.ask(t, member, kb.ID, "上传文件超过限制返回什么错误码", 3), "ERR_FILE_TOO_LARGE"))
	})
}
