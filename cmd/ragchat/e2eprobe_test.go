package main_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/modelprofile"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// The cross-tenant probe is generated from the schema: it introspects the
// API, finds every root query, mutation and subscription field that takes
// an id (an ID argument, or an ID field of an input object that is not a
// filter), and calls each one with ids of another tenant's rows and of
// another user's rows, asserting NOT_FOUND every time. A new field is
// covered without touching this test.

const introspection = `{ __schema {
	queryType { name } mutationType { name } subscriptionType { name }
	types { kind name enumValues { name }
		fields { name args { name type { ...T } } type { ...T } }
		inputFields { name type { ...T } } } } }
fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`

type typeRef struct {
	Kind   string
	Name   *string
	OfType *typeRef
}

// named unwraps NON_NULL and LIST.
func (t typeRef) named() typeRef {
	for t.OfType != nil && (t.Kind == "NON_NULL" || t.Kind == "LIST") {
		t = *t.OfType
	}
	return t
}

func (t typeRef) name() string {
	n := t.named()
	if n.Name == nil {
		return ""
	}
	return *n.Name
}

type inputValue struct {
	Name string
	Type typeRef
}

type schemaField struct {
	Name string
	Args []inputValue
	Type typeRef
}

type schemaType struct {
	Kind        string
	Name        string
	EnumValues  []struct{ Name string }
	Fields      []schemaField
	InputFields []inputValue
}

type schema struct {
	QueryType        struct{ Name string }
	MutationType     struct{ Name string }
	SubscriptionType struct{ Name string }
	Types            []schemaType
}

func (s schema) typ(name string) schemaType {
	for _, t := range s.Types {
		if t.Name == name {
			return t
		}
	}
	return schemaType{}
}

// isFilter reports input types that only filter (an unknown id there
// narrows a list instead of naming a row).
func isFilter(name string) bool { return strings.HasSuffix(name, "WhereInput") }

// literal renders a value of type t for a probe call: id for every ID
// position, a harmless value for anything else required. ok is false when
// t carries no id (optional positions without an id are left out).
func (s schema) literal(t typeRef, id string, seen map[string]bool) (lit string, hasID bool) {
	switch t.Kind {
	case "NON_NULL":
		return s.literal(*t.OfType, id, seen)
	case "LIST":
		inner, has := s.literal(*t.OfType, id, seen)
		return "[" + inner + "]", has
	}
	name := t.name()
	switch name {
	case "ID":
		return fmt.Sprintf("%q", id), true
	case "String":
		return `"probe"`, false
	case "Int":
		return "1", false
	case "Float":
		return "1.0", false
	case "Boolean":
		return "false", false
	case "Time":
		return `"2026-01-01T00:00:00Z"`, false
	case "Upload":
		// A file cannot travel in JSON: the call declares $file and run
		// sends it by the multipart request spec.
		return "$file", false
	}
	def := s.typ(name)
	switch def.Kind {
	case "ENUM":
		return def.EnumValues[0].Name, false
	case "INPUT_OBJECT":
		if seen[name] {
			return "{}", false
		}
		seen[name] = true
		defer delete(seen, name)
		var parts []string
		has := false
		for _, f := range def.InputFields {
			required := f.Type.Kind == "NON_NULL"
			carriesID := !isFilter(f.Type.name()) && s.carriesID(f.Type, map[string]bool{})
			if !required && !carriesID {
				continue
			}
			v, h := s.literal(f.Type, id, seen)
			has = has || h
			parts = append(parts, f.Name+": "+v)
		}
		return "{" + strings.Join(parts, ", ") + "}", has
	}
	return `"probe"`, false
}

// carriesID reports whether t is an ID or an input object (not a filter)
// with an ID somewhere inside.
func (s schema) carriesID(t typeRef, seen map[string]bool) bool {
	name := t.name()
	if name == "ID" {
		return true
	}
	def := s.typ(name)
	if def.Kind != "INPUT_OBJECT" || isFilter(name) || seen[name] {
		return false
	}
	seen[name] = true
	for _, f := range def.InputFields {
		if s.carriesID(f.Type, seen) {
			return true
		}
	}
	return false
}

// probeCall is one generated operation.
type probeCall struct {
	kind, field, text string
	// upload: the call takes $file (an Upload), sent as multipart.
	upload bool
}

// calls builds, for every root field that takes an id, the operation that
// passes id in every id position.
func (s schema) calls(id string) []probeCall {
	var out []probeCall
	for _, root := range []struct{ kind, typ string }{
		{"query", s.QueryType.Name}, {"mutation", s.MutationType.Name}, {"subscription", s.SubscriptionType.Name},
	} {
		for _, f := range s.typ(root.typ).Fields {
			var args []string
			has := false
			for _, a := range f.Args {
				required := a.Type.Kind == "NON_NULL"
				if !required && !s.carriesID(a.Type, map[string]bool{}) {
					continue
				}
				v, h := s.literal(a.Type, id, map[string]bool{})
				has = has || h
				args = append(args, a.Name+": "+v)
			}
			if !has {
				continue
			}
			sel := ""
			if k := s.typ(f.Type.name()).Kind; k == "OBJECT" || k == "INTERFACE" || k == "UNION" {
				sel = " { __typename }"
			}
			joined := strings.Join(args, ", ")
			upload := strings.Contains(joined, "$file")
			decl := ""
			if upload {
				decl = "($file: Upload!)"
			}
			out = append(out, probeCall{root.kind, f.Name, fmt.Sprintf("%s%s { %s(%s)%s }", root.kind, decl, f.Name, joined, sel), upload})
		}
	}
	return out
}

// run executes a probe call (subscriptions over SSE) and returns every
// error and whether any non-null data came back for the field.
func (c probeCall) run(t *testing.T, client *gqlclient.Client) ([]gqlclient.Error, bool) {
	t.Helper()
	var rs []*gqlclient.Response
	if c.kind == "subscription" {
		ctx, cancel := context.WithTimeout(ctxT(t), 10*time.Second)
		defer cancel()
		sub, err := client.SubscribeSSE(ctx, c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		rs, err = sub.Collect(ctx)
		sub.Stop()
		if err != nil {
			t.Fatalf("%s: stream did not end with an error: %v (%d payloads)", c.text, err, len(rs))
		}
	} else if c.upload {
		rs = []*gqlclient.Response{multipartProbe(t, client, c.text)}
	} else {
		r, err := client.Do(ctxT(t), c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		rs = []*gqlclient.Response{r}
	}
	var errs []gqlclient.Error
	data := false
	for _, r := range rs {
		errs = append(errs, r.Errors...)
		d := strings.ReplaceAll(string(r.Data), " ", "")
		if d != "" && d != "null" && d != fmt.Sprintf(`{"%s":null}`, c.field) && d != fmt.Sprintf(`{"%s":[null]}`, c.field) {
			data = true
		}
	}
	return errs, data
}

// multipartProbe sends query, which declares $file, by the GraphQL
// multipart request spec with a small text file.
func multipartProbe(t *testing.T, client *gqlclient.Client, query string) *gqlclient.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	ops, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"file": nil}})
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.file"]}`)
	fw, _ := mw.CreateFormFile("0", "probe.txt")
	_, _ = fw.Write([]byte("probe"))
	_ = mw.Close()
	_, raw, err := client.PostRaw(ctxT(t), body.Bytes(), http.Header{"Content-Type": {mw.FormDataContentType()}})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var r gqlclient.Response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v (%s)", query, err, raw)
	}
	return &r
}

// TestCrossTenantProbe calls every id-taking root field with ids of tenant
// acme's rows as an admin (and support agent) of tenant globex, with ids of
// alice's rows (and of a support grant on her conversation) as another acme
// user (an agent, who curates knowledge but sees only their own
// conversations) and as two acme support agents without an active grant,
// and with ids of the rows of dora's soft-deleted
// conversation as dora herself and as acme's admin. Every call must answer
// NOT_FOUND, with errors identical, as whole objects (message, code, path,
// extensions), to those of the same call with a random UUID.
func TestCrossTenantProbe(t *testing.T) {
	p := startServer(t)
	alice := p.client(t, "acme", "alice")
	dora := p.client(t, "acme", "dora", "agent")
	admin := p.client(t, "acme", "root", "admin")
	// Give alice and dora one of everything: a conversation, messages, a
	// completed attempt with sources, feedback and a retry; an admin read
	// leaves an audit event. Dora then deletes hers.
	conv := giveOneOfEverything(t, alice)
	mustDo(t, admin, `query($c: ID!) { conversation(id: $c) { id } }`, map[string]any{"c": conv}, nil)
	deleted := giveOneOfEverything(t, dora)
	mustDo(t, dora, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": deleted}, nil)
	// Support agents: sue holds an approved grant on alice's conversation;
	// sam held one, read under it, and alice revoked it.
	sue, sam := p.client(t, "acme", "sue", "support"), p.client(t, "acme", "sam", "support")
	sueGrant := approvedGrant(t, sue, alice, conv)
	samGrant := approvedGrant(t, sam, alice, conv)
	mustDo(t, sam, `query($c: ID!) { conversation(id: $c) { messages { edges { node { content } } } } }`, map[string]any{"c": conv}, nil)
	mustDo(t, alice, `mutation($g: ID!) { revokeSupportAccess(id: $g) { id } }`, map[string]any{"g": samGrant}, nil)
	// A model profile open to the whole tenant, which alice used.
	var mp struct{ CreateModelProfile struct{ ID string } }
	mustDo(t, admin, `mutation { createModelProfile(input: {name: "probe", endpoint: "offline", model: "offline"}) { id } }`, nil, &mp)
	var used struct {
		Ask struct{ Attempt struct{ ID string } }
	}
	mustDo(t, alice, `mutation($c: ID!, $p: ID) { ask(input: {conversationId: $c, clientMessageId: "probe-model", question: "上传文件最大是多少？", modelProfileId: $p}) { attempt { id } } }`,
		map[string]any{"c": conv, "p": mp.CreateModelProfile.ID}, &used)
	waitDone(t, alice, used.Ask.Attempt.ID)

	var raw struct {
		Schema schema `json:"__schema"`
	}
	mustDo(t, alice, introspection, nil, &raw)
	s := raw.Schema

	tenantIDs, userIDs := foreignIDs(t, p.dbURL)
	userIDs[supportgrant.Table] = sueGrant
	deletedIDs := ownRowIDs(t, p.dbURL, "dora")
	before := acmeFingerprint(t, p.dbURL)
	probers := []struct {
		name   string
		client *gqlclient.Client
		ids    map[string]string
		// skip lists root fields that may reach these rows: restoring a
		// deleted conversation is the one way back to it.
		skip map[string]bool
	}{
		{"another tenant", p.client(t, "globex", "mallory", "admin", "agent", "member", "support"), tenantIDs, nil},
		{"another user", p.client(t, "acme", "bob", "agent"), userIDs, nil},
		// A support agent may request access to any conversation of the
		// tenant by id; every other path stays closed without an active
		// grant, and another agent's grant is invisible.
		{"a support agent whose grant was revoked", sam, userIDs, map[string]bool{"mutation requestSupportAccess": true}},
		{"a support agent without a grant", p.client(t, "acme", "sid", "support"), userIDs, map[string]bool{"mutation requestSupportAccess": true}},
		{"deleted conversation, its owner", dora, deletedIDs, map[string]bool{"mutation restoreConversation": true}},
		{"deleted conversation, an admin", admin, deletedIDs, map[string]bool{"mutation restoreConversation": true}},
	}
	covered := map[string]bool{}
	for _, pr := range probers {
		t.Run(pr.name, func(t *testing.T) {
			// A field the prober's role may not call at all (an admin-only
			// entry point for an agent) is FORBIDDEN for any id, a random
			// one included; that answer tells nothing about the id.
			forbidden := map[string]bool{}
			for _, call := range s.calls("00000000-0000-7000-8000-000000000000") {
				if errs, _ := call.run(t, pr.client); len(errs) > 0 && errs[0].Code() == "FORBIDDEN" {
					forbidden[call.kind+" "+call.field] = true
				}
			}
			tables := make([]string, 0, len(pr.ids))
			for table := range pr.ids {
				tables = append(tables, table)
			}
			sort.Strings(tables)
			random := map[string][]gqlclient.Error{}
			for _, call := range s.calls(uuid.NewString()) {
				random[call.kind+" "+call.field], _ = call.run(t, pr.client)
			}
			for _, table := range tables {
				for _, call := range s.calls(pr.ids[table]) {
					field := call.kind + " " + call.field
					if pr.skip[field] {
						continue
					}
					covered[field] = true
					errs, data := call.run(t, pr.client)
					if data || len(errs) == 0 {
						t.Errorf("%s id via %s: data returned (errors %+v)", table, call.text, errs)
						continue
					}
					for _, e := range errs {
						if e.Code() == "FORBIDDEN" && forbidden[call.kind+" "+call.field] {
							continue
						}
						if e.Code() != "NOT_FOUND" {
							t.Errorf("%s id via %s: %s %q, want NOT_FOUND", table, call.text, e.Code(), e.Message)
						}
					}
					if got, want := errorsJSON(t, errs), errorsJSON(t, random[field]); got != want {
						t.Errorf("%s id via %s: errors differ from a random id's:\n got  %s\n want %s", table, call.text, got, want)
					}
				}
			}
		})
	}
	// The probe must have reached the id-taking fields we know of; a new
	// field is added automatically.
	for _, f := range []string{"query node", "query nodes", "query conversation", "query attempt",
		"mutation ask", "mutation retryAttempt", "mutation cancelAttempt", "mutation submitFeedback",
		"mutation renameConversation", "mutation deleteConversation", "mutation setDocumentAcl",
		"mutation ingestDocument", "mutation createConversation", "subscription attemptEvents", "subscription conversationEvents",
		"mutation requestSupportAccess", "mutation approveSupportAccess", "mutation denySupportAccess", "mutation revokeSupportAccess",
		"mutation updateModelProfile", "mutation deleteModelProfile"} {
		if !covered[f] {
			t.Errorf("the probe did not cover %s", f)
		}
	}
	t.Logf("probed %d root fields", len(covered))
	if after := acmeFingerprint(t, p.dbURL); after != before {
		t.Errorf("the probe changed tenant acme's data:\nbefore %s\nafter  %s", before, after)
	}
}

// giveOneOfEverything gives c's user a conversation with messages, a
// completed attempt with sources, feedback and a retry, and returns the
// conversation's id.
func giveOneOfEverything(t *testing.T, c *gqlclient.Client) string {
	t.Helper()
	conv := createConversation(t, c)
	a := ask(t, c, conv, "上传文件最大是多少？")
	waitDone(t, c, a)
	mustDo(t, c, `mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: DOWN, reasons: [OTHER]}) { id } }`, map[string]any{"a": a}, nil)
	var retry struct {
		RetryAttempt struct{ Attempt struct{ ID string } }
	}
	mustDo(t, c, `mutation($a: ID!) { retryAttempt(input: {attemptId: $a, clientRequestId: "r"}) { attempt { id } } }`, map[string]any{"a": a}, &retry)
	waitDone(t, c, retry.RetryAttempt.Attempt.ID)
	return conv
}

// approvedGrant has agent request access to conv and its owner approve
// it, and returns the grant's id.
func approvedGrant(t *testing.T, agent, owner *gqlclient.Client, conv string) string {
	t.Helper()
	var g struct{ RequestSupportAccess struct{ ID string } }
	mustDo(t, agent, `mutation($c: ID!) { requestSupportAccess(conversationId: $c, reason: "probe ticket") { id } }`, map[string]any{"c": conv}, &g)
	mustDo(t, owner, `mutation($g: ID!) { approveSupportAccess(id: $g) { id } }`, map[string]any{"g": g.RequestSupportAccess.ID}, nil)
	return g.RequestSupportAccess.ID
}

// errorsJSON renders errors as whole objects for comparison.
func errorsJSON(t *testing.T, errs []gqlclient.Error) string {
	t.Helper()
	b, err := json.Marshal(errs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// acmeFingerprint summarises tenant acme's rows that a leaking mutation
// would change.
func acmeFingerprint(t *testing.T, dbURL string) string {
	t.Helper()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out strings.Builder
	for _, q := range []string{
		`SELECT count(*) || ':' || coalesce(string_agg(status || title || version, ',' ORDER BY id), '') FROM conversations WHERE tenant_id = 'acme'`,
		`SELECT count(*) || ':' || coalesce(string_agg(status, ',' ORDER BY id), '') FROM attempts WHERE tenant_id = 'acme'`,
		`SELECT count(*) || ':' || coalesce(string_agg(rating || coalesce(comment, ''), ',' ORDER BY id), '') FROM feedbacks WHERE tenant_id = 'acme'`,
		`SELECT count(*) || ':' || coalesce(string_agg(visibility || version, ',' ORDER BY id), '') FROM documents WHERE tenant_id = 'acme'`,
		`SELECT count(*)::text FROM messages WHERE tenant_id = 'acme'`,
		`SELECT count(*)::text FROM document_grants WHERE tenant_id = 'acme'`,
		`SELECT count(*)::text FROM knowledge_bases WHERE tenant_id = 'acme'`,
		`SELECT count(*) || ':' || coalesce(string_agg(status || expires_at::text, ',' ORDER BY id), '') FROM support_grants WHERE tenant_id = 'acme'`,
	} {
		var v string
		if err := db.QueryRow(q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out.WriteString(v + " | ")
	}
	return out.String()
}

// foreignIDs reads, straight from the database, one id per node table of
// tenant acme (for the other-tenant probe) and one id per table of alice's
// own rows (for the other-user probe).
func foreignIDs(t *testing.T, dbURL string) (tenant, user map[string]string) {
	t.Helper()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	one := func(query string) string {
		var id string
		if err := db.QueryRow(query).Scan(&id); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return id
	}
	tenant, user = map[string]string{}, map[string]string{}
	for _, table := range []string{conversation.Table, message.Table, attempt.Table, source.Table, feedback.Table,
		knowledgebase.Table, document.Table, auditevent.Table, supportgrant.Table, modelprofile.Table} {
		tenant[table] = one(fmt.Sprintf(`SELECT id FROM %s WHERE tenant_id = 'acme' ORDER BY id LIMIT 1`, table))
	}
	return tenant, ownRowIDs(t, dbURL, "alice")
}

// ownRowIDs reads one id per table of owner's rows in tenant acme.
func ownRowIDs(t *testing.T, dbURL, owner string) map[string]string {
	t.Helper()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	one := func(query string) string {
		var id string
		if err := db.QueryRow(query, owner).Scan(&id); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return id
	}
	ids := map[string]string{
		conversation.Table: one(`SELECT id FROM conversations WHERE tenant_id = 'acme' AND user_id = $1 LIMIT 1`),
	}
	for _, table := range []string{message.Table, attempt.Table, source.Table, feedback.Table} {
		ids[table] = one(fmt.Sprintf(`SELECT id FROM %s WHERE tenant_id = 'acme' AND owner_id = $1 ORDER BY id LIMIT 1`, table))
	}
	ids[message.Table+" (assistant)"] = one(`SELECT id FROM messages WHERE tenant_id = 'acme' AND owner_id = $1 AND role = 'ASSISTANT' LIMIT 1`)
	return ids
}
