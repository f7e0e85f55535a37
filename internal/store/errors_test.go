package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestClassify: every class of storage error, each produced for real by
// the database where the database is the source (on both backends), maps
// to the code docs/API.md documents for it, through the one classifier
// that the engine, the knowledge service, the resolvers and the error
// presenter share. A row hidden by the privacy rules answers exactly like
// a missing one.
func TestClassify(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		c := db.Client
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		for _, id := range []string{"acme", "globex"} {
			require.NoError(t, c.Tenant.Create().SetID(id).SetName(id).Exec(sys))
		}
		member := as(alice) // of acme
		cancelled, cancel := context.WithCancel(member)
		cancel()
		expired, stop := context.WithDeadline(member, time.Now().Add(-time.Second))
		defer stop()

		cases := []struct {
			name    string
			err     func() error
			class   store.Class
			code    domain.Code
			message string // the client-safe message of DomainError(err, "tenant"); "" keeps err
		}{
			{"nil", func() error { return nil }, store.ClassNone, "", ""},
			{"a domain error", func() error {
				return domain.Errorf(domain.CodeConversationBusy, "busy")
			}, store.ClassDomain, domain.CodeConversationBusy, ""},
			{"a wrapped domain error", func() error {
				return fmt.Errorf("load: %w", domain.NotFound("attempt"))
			}, store.ClassDomain, domain.CodeNotFound, ""},
			{"missing row", func() error {
				_, err := c.Tenant.Get(member, "nowhere")
				return err
			}, store.ClassNotFound, domain.CodeNotFound, "tenant not found"},
			{"row hidden by the privacy rules", func() error {
				_, err := c.Tenant.Get(member, "globex")
				return err
			}, store.ClassNotFound, domain.CodeNotFound, "tenant not found"},
			{"unknown node id", func() error {
				_, err := db.NodeType(member, uuid.New())
				return err
			}, store.ClassNotFound, domain.CodeNotFound, "tenant not found"},
			{"privacy denial", func() error {
				return c.Tenant.Create().SetID("mine").SetName("mine").Exec(member)
			}, store.ClassDenied, domain.CodeForbidden, "not permitted"},
			{"cancelled request", func() error {
				_, err := c.Tenant.Query().All(cancelled)
				return err
			}, store.ClassCancelled, domain.CodeUnavailable, "request cancelled or timed out"},
			{"request past its deadline", func() error {
				_, err := c.Tenant.Query().All(expired)
				return err
			}, store.ClassCancelled, domain.CodeUnavailable, "request cancelled or timed out"},
			{"database unreachable", func() error {
				return fmt.Errorf("ent: query tenant: %w", refused(t))
			}, store.ClassTransient, domain.CodeUnavailable, "the database is unavailable, try again"},
			{"value refused by a validator", func() error {
				return c.Tenant.Create().SetID("blank").SetName("").Exec(sys)
			}, store.ClassInvalid, domain.CodeBadUserInput, "invalid tenant"},
			{"constraint violation", func() error {
				return c.Tenant.Create().SetID("acme").SetName("again").Exec(sys)
			}, store.ClassConflict, domain.CodeConflict, "the tenant conflicts with a concurrent change, try again"},
			{"any other database error", func() error {
				_, err := c.Tenant.Query().Where(func(s *entsql.Selector) {
					s.Where(entsql.ExprP("no_such_column = 1"))
				}).All(sys)
				return err
			}, store.ClassInternal, domain.CodeInternal, "internal error"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				err := tc.err()
				require.Equal(t, tc.class, store.Classify(err), "Classify(%v)", err)
				mapped := store.DomainError(err, "tenant")
				assert.Equal(t, tc.code, domain.ErrorCode(mapped), "%v", mapped)
				if tc.message == "" {
					assert.Equal(t, err, mapped, "kept as it is")
					return
				}
				var de *domain.Error
				require.ErrorAs(t, mapped, &de)
				assert.Equal(t, tc.message, de.Message)
				if tc.class != store.ClassNotFound {
					assert.ErrorIs(t, mapped, err, "the cause is kept for the log")
				}
			})
		}
		// The mapped answers of a hidden and a missing row are identical.
		_, missing := c.Tenant.Get(member, "nowhere")
		_, hidden := c.Tenant.Get(member, "globex")
		assert.Equal(t, store.DomainError(missing, "tenant"), store.DomainError(hidden, "tenant"))
	})
}
