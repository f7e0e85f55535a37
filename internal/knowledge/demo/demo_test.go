package demo_test

import (
	"errors"
	"io/fs"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/knowledge/chunker"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
)

func TestManifest(t *testing.T) {
	docs := demo.Documents()
	require.NotEmpty(t, docs)
	paths := map[string]bool{}
	for _, d := range docs {
		t.Run(d.Path, func(t *testing.T) {
			assert.False(t, paths[d.Path], "duplicate path")
			paths[d.Path] = true
			text, err := demo.Read(d.Path)
			require.NoError(t, err)
			assert.True(t, utf8.ValidString(text))
			assert.NotEmpty(t, strings.TrimSpace(text))
			assert.True(t, strings.HasPrefix(text, "# "+d.Title+"\n"), "the first line is not the title heading")
			assert.Contains(t, []string{demo.Chinese, demo.English}, d.Language)
			assert.NotEmpty(t, d.Title)
			u, err := url.Parse(d.SourceURI)
			require.NoError(t, err)
			assert.Equal(t, "https", u.Scheme)
			n := utf8.RuneCountInString(text)
			assert.True(t, n >= 300 && n <= 2500, "%d characters", n)
		})
	}
	// Every embedded file is in the manifest.
	err := fs.WalkDir(demo.FS(), ".", func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			assert.True(t, paths[path], "%s is not in the manifest", path)
		}
		return err
	})
	require.NoError(t, err)
}

func TestOnlyTheRunbookIsRestricted(t *testing.T) {
	var restricted []string
	for _, d := range demo.Documents() {
		if d.Restricted() {
			restricted = append(restricted, d.Path)
			assert.Equal(t, []string{demo.OpsGroup}, d.Groups)
		}
	}
	assert.Equal(t, []string{"zh/ops-upload-runbook.md"}, restricted)
}

func TestDocumentsReturnsACopy(t *testing.T) {
	docs := demo.Documents()
	for i := range docs {
		docs[i].Title = "changed"
		if len(docs[i].Groups) > 0 {
			docs[i].Groups[0] = "everyone"
		}
	}
	for _, d := range demo.Documents() {
		assert.NotEqual(t, "changed", d.Title)
		assert.NotContains(t, d.Groups, "everyone")
	}
}

func TestReadUnknownPath(t *testing.T) {
	_, err := demo.Read("zh/missing.md")
	assert.True(t, errors.Is(err, fs.ErrNotExist))
}

func TestConstants(t *testing.T) {
	assert.Equal(t, "demo", demo.TenantID)
	assert.Equal(t, "Demo Tenant", demo.TenantName)
	assert.Equal(t, "产品帮助中心 / Product Help Center", demo.KnowledgeBaseName)
}

// facts are the statements the seed dialogues need, by document. Each must
// appear in one chunk, so that retrieval can return it whole.
var facts = map[string][]string{
	"zh/upload-limits.md": {
		"单个上传文件最大为20MB", "HTTP 413", "ERR_FILE_TOO_LARGE", "管理员单个上传文件的上限为100MB",
		"总容量上限为200MB", "`upload.max_file_size` 在 `config/app.yaml` 中修改", "修改配置后需重启服务",
		"PDF、DOCX", "HTTP 415",
	},
	"en/upload-limits.md": {
		"The maximum size of a single uploaded file is 20 MB", "HTTP 413", "ERR_FILE_TOO_LARGE",
		"uploaded by an administrator is 100 MB", "total size of at most 200 MB",
		"`upload.max_file_size` in `config/app.yaml`", "Restart the service", "PDF, DOCX", "HTTP 415",
	},
	"zh/refunds.md": {
		"支付宝和微信支付的退款通常在 1–3 个工作日内到账", "银行卡退款通常在 3–7 个工作日内到账",
		"信用卡退款通常在 7–15 个工作日内", "法定节假日顺延", "订单完成后 7 天内可以申请退款",
	},
	"en/refunds.md": {
		"Refunds to Alipay and WeChat Pay usually arrive within 1–3 business days",
		"Refunds to a bank card usually arrive within 3–7 business days",
		"Refunds to a credit card usually arrive within 7–15 business days", "public holidays",
		"within 7 days after the order is completed",
	},
	"zh/pgvector-hnsw.md": {
		"PostgreSQL 创建 HNSW 索引", "USING hnsw (embedding vector_cosine_ops)", "WITH (m = 16, ef_construction = 64)",
		"hnsw.ef_search", "SET hnsw.iterative_scan = relaxed_order", "hnsw.max_scan_tuples",
	},
	"zh/what-is-rag.md": {
		"RAG（Retrieval-Augmented Generation，检索增强生成）", "RAG 的缺点和局限", "依赖检索质量", "知识可更新",
	},
	"zh/ops-upload-runbook.md": {"内部限流阈值", "每个租户每分钟最多 120 次上传请求", "告警值班电话：010-5550-0199"},
}

// approxCounter approximates a BPE tokenizer: one token per CJK character,
// per run of ASCII letters or digits, and per other non-space character.
type approxCounter struct{}

func (approxCounter) Count(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		word := r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !word || !inWord {
			if !unicode.IsSpace(r) {
				n++
			}
		}
		inWord = word
	}
	return n
}

func TestFactsForTheSeedDialogues(t *testing.T) {
	require.Len(t, facts, len(demo.Documents()))
	for _, d := range demo.Documents() {
		text, err := demo.Read(d.Path)
		require.NoError(t, err)
		for _, f := range facts[d.Path] {
			assert.Contains(t, text, f, d.Path)
		}
	}
	// The spec's headline facts, and agreement across languages.
	all := func(lang string) string {
		var b strings.Builder
		for _, d := range demo.Documents() {
			if d.Language == lang && !d.Restricted() {
				text, _ := demo.Read(d.Path)
				b.WriteString(text)
			}
		}
		return b.String()
	}
	zh, en := all(demo.Chinese), all(demo.English)
	for _, s := range []string{"20MB", "ERR_FILE_TOO_LARGE", "银行卡", "hnsw", "100MB", "200MB", "1–3", "3–7", "7–15"} {
		assert.Contains(t, zh, s)
	}
	for _, s := range []string{"20 MB", "ERR_FILE_TOO_LARGE", "bank card", "100 MB", "200 MB", "1–3", "3–7", "7–15", "413", "upload.max_file_size"} {
		assert.Contains(t, en, s)
	}
}

// TestChunksAreSelfDescribing chunks every document the way ingestion does
// and checks that every chunk names its document and section, and that no
// fact the dialogues need is cut in two.
func TestChunksAreSelfDescribing(t *testing.T) {
	for _, maxTokens := range []int{300, 120} {
		for _, d := range demo.Documents() {
			text, err := demo.Read(d.Path)
			require.NoError(t, err)
			chunks, err := chunker.Split(t.Context(), text, chunker.Options{MaxTokens: maxTokens, Counter: approxCounter{}})
			require.NoError(t, err)
			require.NotEmpty(t, chunks)
			for _, c := range chunks {
				assert.LessOrEqual(t, c.Tokens, maxTokens)
				assert.True(t, strings.HasPrefix(c.Heading, d.Title), "%s: chunk %d heading %q lacks the title", d.Path, c.Ordinal, c.Heading)
				assert.True(t, strings.HasPrefix(c.Content, c.Heading+"\n"), "%s: chunk %d does not start with its heading", d.Path, c.Ordinal)
			}
			for _, f := range facts[d.Path] {
				found := false
				for _, c := range chunks {
					found = found || strings.Contains(c.Content, f)
				}
				assert.True(t, found, "%s at %d tokens: no chunk holds %q", d.Path, maxTokens, f)
			}
		}
	}
}
