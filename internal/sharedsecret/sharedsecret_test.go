package sharedsecret_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ragchat/ragchat/internal/sharedsecret"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestAgree: replicas asking for a secret at the same moment all get one
// secret, written by exactly one of them; later calls read it; another
// name is another secret.
func TestAgree(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const replicas = 8
		var (
			wg      sync.WaitGroup
			secrets [replicas][]byte
			created [replicas]bool
			errs    [replicas]error
			start   = make(chan struct{})
		)
		for i := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				secrets[i], created[i], errs[i] = sharedsecret.Agree(ctx, db.Client, sharedsecret.Broker)
			}()
		}
		close(start)
		wg.Wait()
		writers := 0
		for i := range replicas {
			if errs[i] != nil {
				t.Fatalf("replica %d: %v", i, errs[i])
			}
			if string(secrets[i]) != string(secrets[0]) {
				t.Fatalf("replica %d got %q, replica 0 %q", i, secrets[i], secrets[0])
			}
			if created[i] {
				writers++
			}
		}
		if writers != 1 {
			t.Errorf("%d replicas report writing the secret, want 1", writers)
		}
		if len(secrets[0]) != 2*sharedsecret.Bytes {
			t.Errorf("the secret has %d characters, want %d", len(secrets[0]), 2*sharedsecret.Bytes)
		}

		again, made, err := sharedsecret.Agree(ctx, db.Client, sharedsecret.Broker)
		if err != nil || made || string(again) != string(secrets[0]) {
			t.Errorf("a later start got %q (created %v, %v), want the stored one", again, made, err)
		}
		other, _, err := sharedsecret.Agree(ctx, db.Client, "other")
		if err != nil || string(other) == string(secrets[0]) {
			t.Errorf("another name got %q (%v), want a secret of its own", other, err)
		}
	})
}

// TestOnlyTheJobReadsSecrets: no viewer, not even an administrator, and
// no other system job reads or writes the table.
func TestOnlyTheJobReadsSecrets(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, _, err := sharedsecret.Agree(ctx, db.Client, sharedsecret.Broker); err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]context.Context{
			"admin":       viewer.NewContext(ctx, &viewer.Viewer{TenantID: "t", UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}),
			"another job": viewer.SystemJobContext(ctx, viewer.JobPurge),
			"nobody":      ctx,
		} {
			if n, err := db.Client.SharedSecret.Query().Count(c); err == nil {
				t.Errorf("%s read the shared secrets (%d rows)", name, n)
			}
			if err := db.Client.SharedSecret.Create().SetID("forged").SetSecret("x").Exec(c); err == nil {
				t.Errorf("%s wrote a shared secret", name)
			}
		}
	})
}
