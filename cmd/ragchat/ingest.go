package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/tenant"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/server"
	"github.com/ragchat/ragchat/internal/viewer"
)

// runIngest ingests files into a knowledge base of a tenant, acting as an
// admin of that tenant (the operator's flags name it; no request can). The
// tenant and the knowledge base are created when missing. Re-ingesting a
// file replaces its earlier version (same source URI).
func runIngest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ingest", stderr)
	tenant := fs.String("tenant", "", "tenant key (required)")
	kbName := fs.String("kb", "", "knowledge base name (required; created when missing)")
	actor := fs.String("as", "cli:ingest", "the admin user id recorded as the actor")
	var groups, users listFlag
	fs.Var(&groups, "groups", "restrict the documents to these groups (comma-separated)")
	fs.Var(&users, "users", "restrict the documents to these users (comma-separated)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tenant == "" || *kbName == "" || fs.NArg() == 0 {
		return usagef("usage: ragchat ingest --tenant T --kb K [--groups g1,g2] [--users u1] FILE…")
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	log := server.NewLogger(stderr, cfg.Log.Level)
	db, err := openDB(ctx, cfg, log, cfg.Database.AutoMigrate)
	if err != nil {
		return err
	}
	// The configured broker, so that the running servers learn of the
	// documents whose chunks a re-ingest replaced (their open streams
	// re-check the citations; internal/authwatch).
	c, err := newCore(ctx, cfg, db, log, nil, nil)
	if err != nil {
		db.Close()
		return err
	}
	defer c.close()

	if err := ensureTenant(ctx, db.Client, *tenant); err != nil {
		return err
	}
	admin := viewer.NewContext(ctx, &viewer.Viewer{TenantID: *tenant, UserID: *actor, Roles: []viewer.Role{viewer.RoleAdmin}})
	kb, err := db.Client.KnowledgeBase.Query().Where(knowledgebase.Name(*kbName)).Only(admin)
	if ent.IsNotFound(err) {
		kb, err = c.knowledge.CreateKnowledgeBase(admin, *kbName, "")
	}
	if err != nil {
		return fmt.Errorf("knowledge base %q: %w", *kbName, err)
	}
	acl := knowledge.ACL{Visibility: knowledge.VisibilityTenant}
	if len(groups) > 0 || len(users) > 0 {
		acl = knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: groups, Users: users}
	}
	for _, path := range fs.Args() {
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		abs, _ := filepath.Abs(path)
		doc, err := c.knowledge.Ingest(admin, kb.ID, knowledge.DocumentInput{
			Title:     documentTitle(path, string(content)),
			SourceURI: "file://" + filepath.ToSlash(abs),
			Content:   string(content),
			ACL:       acl,
		})
		if err != nil {
			return fmt.Errorf("ingest %s: %w", path, err)
		}
		log.Info("ingested", slog.String("file", path), slog.String("document", doc.ID.String()), slog.Int("version", doc.Version))
		fmt.Fprintf(stdout, "%s\t%s\tv%d\t%s\n", doc.ID, doc.Title, doc.Version, path)
	}
	return nil
}

// ensureTenant creates the tenant (as the provisioning job) when missing.
func ensureTenant(ctx context.Context, client *ent.Client, id string) error {
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	exists, err := client.Tenant.Query().Where(tenant.ID(id)).Exist(sys)
	if err != nil || exists {
		return err
	}
	err = client.Tenant.Create().SetID(id).SetName(id).Exec(sys)
	if ent.IsConstraintError(err) {
		return nil // created concurrently
	}
	if err != nil {
		return fmt.Errorf("create tenant %q: %w", id, err)
	}
	return nil
}

// documentTitle is the file's first Markdown heading, else its base name
// without extension.
func documentTitle(path, content string) string {
	sc := bufio.NewScanner(strings.NewReader(content))
	for i := 0; sc.Scan() && i < 50; i++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "# ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "# "))
		}
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
