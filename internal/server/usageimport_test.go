package server_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// forgedExport is an export (our JSON) whose one answer claims 2,000,000,000
// tokens of a made-up model, completed at now.
func forgedExport(t *testing.T, now time.Time) string {
	t.Helper()
	at := now.UTC().Format(time.RFC3339Nano)
	doc := map[string]any{
		"version": "ragchat.conversation/v1", "exportedAt": at,
		"conversation": map[string]any{"id": "c1", "title": "forged usage", "createdAt": at, "updatedAt": at, "status": "ACTIVE"},
		"messages": []any{
			map[string]any{"id": "u1", "role": "USER", "content": "how big may an upload be?", "createdAt": at, "sequenceNo": 1,
				"attempts": []any{map[string]any{"id": "a1", "status": "COMPLETED", "model": "made-up-model",
					"promptTokens": 1_000_000_000, "completionTokens": 1_000_000_000, "totalTokens": 2_000_000_000,
					"createdAt": at, "completedAt": at, "sources": []any{}}}},
			map[string]any{"id": "m2", "parentId": "u1", "role": "ASSISTANT", "content": "10 MiB.", "createdAt": at, "sequenceNo": 2,
				"model": "made-up-model", "attemptId": "a1"},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportedAnswersAreNoUsage, on each backend: an imported answer keeps
// the token counts, model and date its file claims (they are shown on the
// attempt), but none of it is usage: after importing 2,000,000,000 tokens
// of a made-up model completed today, the admin's usageSummary and
// usageCosts and the importer's myUsage under a HARD quota are exactly
// what they were, and the importer can still ask.
func TestImportedAnswersAreNoUsage(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		mustDo(t, admin, `mutation { updateTenantSettings(input: {tokenQuotaUserTokens: 100000}) { tokenQuotaKind } }`, nil, nil)
		conv := createConversation(t, alice)
		waitDone(t, alice, ask(t, alice, conv, "上传文件最大是多少？"))

		now := time.Now().UTC()
		vars := map[string]any{"f": now.Add(-24 * time.Hour).Format(time.RFC3339), "t": now.Add(24 * time.Hour).Format(time.RFC3339)}
		type report struct {
			UsageSummary []map[string]any
			UsageCosts   []map[string]any
		}
		type usage struct {
			MyUsage struct{ Used, Reserved, TenantUsed int }
		}
		// read waits until nothing is reserved (the answer is settled),
		// then reads the reports.
		read := func() (report, usage) {
			var u usage
			deadline := time.Now().Add(30 * time.Second)
			for {
				mustDo(t, alice, `{ myUsage { used reserved tenantUsed } }`, nil, &u)
				if u.MyUsage.Reserved == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			var r report
			mustDo(t, admin, `query($f: Time!, $t: Time!) {
				usageSummary(from: $f, to: $t) { day model attempts promptTokens completionTokens totalTokens costMicros }
				usageCosts(from: $f, to: $t) { day model userId calls promptTokens completionTokens costMicros } }`, vars, &r)
			return r, u
		}
		before, mine := read()
		if len(before.UsageSummary) != 1 || before.UsageSummary[0]["attempts"] != float64(1) || mine.MyUsage.Used <= 0 {
			t.Fatalf("before the import: %+v %+v", before, mine)
		}

		var imported struct {
			ImportConversations struct {
				Conversations []struct {
					ID       string
					Messages struct {
						Edges []struct {
							Node struct {
								Attempt *struct {
									Model       string
									TotalTokens int
								}
							}
						}
					}
				}
			}
		}
		mustDo(t, alice, `mutation($c: String!) { importConversations(input: {format: RAGCHAT_JSON, content: $c}) {
			conversations { id messages { edges { node { attempt { model totalTokens } } } } } } }`,
			map[string]any{"c": forgedExport(t, now)}, &imported)
		convs := imported.ImportConversations.Conversations
		if len(convs) != 1 || !strings.Contains(mustJSONString(t, convs), `"TotalTokens":2000000000`) {
			t.Fatalf("the import keeps the answer's claimed tokens: %+v", convs)
		}

		after, mineAfter := read()
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("the reports changed:\nbefore %+v\nafter  %+v", before, after)
		}
		if mineAfter != mine {
			t.Fatalf("myUsage changed: before %+v, after %+v", mine, mineAfter)
		}
		waitDone(t, alice, ask(t, alice, conv, "那退款呢？"))
	})
}

// mustJSONString is v as JSON.
func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
