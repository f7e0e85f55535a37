package knowledge_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// TestStorageErrorsAsTheEngineMapsThem: the knowledge service maps storage
// errors with the engine's classifier (store.DomainError), so a cancelled
// request and a database that is down are UNAVAILABLE here as in the
// engine (docs/API.md, "Errors"), not INTERNAL, and the cause is kept.
func TestStorageErrorsAsTheEngineMapsThem(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb := e.kb(t, "Help")
		question := randomUnit(rand.New(rand.NewPCG(1, 2)))
		ctx, cancel := context.WithCancel(as(carol))
		cancel()
		_, err := e.svc.CreateKnowledgeBase(ctx, "Cancelled", "")
		requireCode(t, err, domain.CodeUnavailable)
		assert.True(t, errors.Is(err, context.Canceled), "the cause is kept: %v", err)
		_, err = e.ret.Search(ctx, kb.ID, question, 3)
		requireCode(t, err, domain.CodeUnavailable)
	})
	t.Run("postgres outage", func(t *testing.T) {
		cluster := testdb.StartCluster(t)
		db := storetest.Open(t, testdb.Backend{Name: "postgres", DSN: cluster.Database()})
		e := newEnv(t, db, knowledge.Options{})
		kb := e.kb(t, "Help")
		question := randomUnit(rand.New(rand.NewPCG(1, 2)))
		cluster.Stop()
		_, err := e.svc.CreateKnowledgeBase(as(carol), "During the outage", "")
		requireCode(t, err, domain.CodeUnavailable)
		assert.True(t, store.IsTransient(err), "the cause is kept: %v", err)
		_, err = e.ret.Search(as(carol), kb.ID, question, 3)
		requireCode(t, err, domain.CodeUnavailable)
		cluster.Start()
		_, err = e.svc.CreateKnowledgeBase(as(carol), "After the outage", "")
		assert.NoError(t, err, "the same service works once the database is back")
	})
}
