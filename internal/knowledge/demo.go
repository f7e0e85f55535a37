package knowledge

import (
	"context"
	"fmt"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DemoCurator is the user id the demo documents are ingested as.
const DemoCurator = "system:provision"

// demoCleanupTimeout bounds removing a half-loaded demo knowledge base.
const demoCleanupTimeout = 30 * time.Second

// LoadDemo provisions the built-in demo on first start: it creates the demo
// tenant (as the provisioning system job) unless it exists, then, acting
// as an admin of that tenant, creates the demo knowledge base and ingests
// every demo document with its access list, unless the knowledge base
// already exists. created reports whether it loaded the knowledge base.
//
// It is idempotent and safe to run from several instances at once: the
// loser of a race finds the tenant or knowledge base taken and returns
// created=false. If ingesting fails, the half-loaded knowledge base is
// removed so that the next start tries again.
func LoadDemo(ctx context.Context, client *ent.Client, svc *Service) (created bool, err error) {
	if err := ensureDemoTenant(ctx, client); err != nil {
		return false, err
	}
	curator := viewer.NewContext(ctx, &viewer.Viewer{
		TenantID: demo.TenantID,
		UserID:   DemoCurator,
		Roles:    []viewer.Role{viewer.RoleAdmin},
	})
	exists, err := client.KnowledgeBase.Query().Where(knowledgebase.Name(demo.KnowledgeBaseName)).Exist(curator)
	if err != nil || exists {
		return false, store.DomainError(err, "knowledge base")
	}
	kb, err := svc.CreateKnowledgeBase(curator, demo.KnowledgeBaseName, demo.KnowledgeBaseDescription)
	if domain.ErrorCode(err) == domain.CodeConflict {
		return false, nil // another instance created it first
	}
	if err != nil {
		return false, err
	}
	if err := ingestDemo(curator, svc, kb); err != nil {
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(curator), demoCleanupTimeout)
		defer cancel()
		if derr := client.KnowledgeBase.DeleteOne(kb).Exec(cleanup); derr != nil {
			err = fmt.Errorf("%w (and removing the partial demo knowledge base failed: %v)", err, derr)
		}
		return false, err
	}
	return true, nil
}

// ensureDemoTenant creates the demo tenant with default settings unless it
// exists.
func ensureDemoTenant(ctx context.Context, client *ent.Client) error {
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	_, err := client.Tenant.Get(sys, demo.TenantID)
	switch {
	case err == nil:
		return nil
	case !ent.IsNotFound(err):
		return fmt.Errorf("knowledge: load demo: %w", err)
	}
	err = client.Tenant.Create().
		SetID(demo.TenantID).
		SetName(demo.TenantName).
		SetSettings(domain.DefaultTenantSettings()).
		Exec(sys)
	if err != nil && !ent.IsConstraintError(err) {
		return fmt.Errorf("knowledge: create the demo tenant: %w", err)
	}
	return nil
}

// ingestDemo ingests every demo document into kb.
func ingestDemo(ctx context.Context, svc *Service, kb *ent.KnowledgeBase) error {
	for _, d := range demo.Documents() {
		content, err := demo.Read(d.Path)
		if err != nil {
			return err
		}
		acl := ACL{Visibility: VisibilityTenant}
		if d.Restricted() {
			acl = ACL{Visibility: VisibilityRestricted, Groups: d.Groups}
		}
		in := DocumentInput{Title: d.Title, SourceURI: d.SourceURI, Content: content, ACL: acl}
		if _, err := svc.Ingest(ctx, kb.ID, in); err != nil {
			return fmt.Errorf("knowledge: ingest demo document %s: %w", d.Path, err)
		}
	}
	return nil
}
