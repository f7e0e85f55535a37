// Package demo holds the built-in demo knowledge base that ragchat loads
// into a fresh installation: a handful of Chinese and English help-center
// articles (file upload limits, refunds, pgvector HNSW indexes, what RAG
// is) and one restricted operations runbook. The articles carry the facts
// the example dialogues of the product specification ask about, so those
// dialogues work end to end with the offline model.
//
// The documents are Markdown files embedded in the binary; Documents lists
// them with their metadata, and Read or FS returns their text.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"unicode/utf8"
)

// The demo tenant and its knowledge base.
const (
	// TenantID is the id of the demo tenant.
	TenantID = "demo"
	// TenantName is the display name of the demo tenant.
	TenantName = "Demo Tenant"
	// KnowledgeBaseName is the name of the demo knowledge base.
	KnowledgeBaseName = "产品帮助中心 / Product Help Center"
	// KnowledgeBaseDescription describes the demo knowledge base.
	KnowledgeBaseDescription = "内置演示知识库：文件上传限制、退款说明、pgvector HNSW 索引和 RAG 简介。" +
		" Built-in demo knowledge base: upload limits, refunds, pgvector HNSW indexes and an introduction to RAG."
	// OpsGroup is the group that may read the restricted demo runbook.
	OpsGroup = "ops"
)

// Languages of the demo documents.
const (
	Chinese = "zh"
	English = "en"
)

// Document describes one demo document.
type Document struct {
	// Path is the document's path in FS, e.g. "zh/upload-limits.md".
	Path string
	// Title is the document title; it is also the document's first
	// heading.
	Title string
	// SourceURI is where the document notionally comes from.
	SourceURI string
	// Groups are the groups that may read the document. Empty means the
	// whole tenant may.
	Groups []string
	// Language is "zh" or "en".
	Language string
}

// Restricted reports whether only some groups may read d.
func (d Document) Restricted() bool { return len(d.Groups) > 0 }

// documents is the manifest, in load order.
var documents = []Document{
	{Path: "zh/upload-limits.md", Title: "文件上传限制", SourceURI: "https://help.example.com/zh/upload-limits", Language: Chinese},
	{Path: "en/upload-limits.md", Title: "File Upload Limits", SourceURI: "https://help.example.com/en/upload-limits", Language: English},
	{Path: "zh/refunds.md", Title: "退款说明", SourceURI: "https://help.example.com/zh/refunds", Language: Chinese},
	{Path: "en/refunds.md", Title: "Refund Policy", SourceURI: "https://help.example.com/en/refunds", Language: English},
	{Path: "zh/pgvector-hnsw.md", Title: "PostgreSQL 如何创建 HNSW 索引（pgvector）", SourceURI: "https://help.example.com/zh/pgvector-hnsw", Language: Chinese},
	{Path: "zh/what-is-rag.md", Title: "什么是 RAG", SourceURI: "https://help.example.com/zh/what-is-rag", Language: Chinese},
	{Path: "zh/ops-upload-runbook.md", Title: "内部运维手册：上传服务", SourceURI: "https://wiki.example.com/ops/upload-runbook", Groups: []string{OpsGroup}, Language: Chinese},
}

//go:embed docs
var embedded embed.FS

// docs is the embedded docs directory as the root of a file system.
var docs = func() fs.FS {
	sub, err := fs.Sub(embedded, "docs")
	if err != nil {
		panic(err) // unreachable: "docs" is a valid path embedded above
	}
	return sub
}()

// Documents returns the demo documents in load order. The result is a copy
// the caller may modify.
func Documents() []Document {
	out := make([]Document, len(documents))
	for i, d := range documents {
		d.Groups = slices.Clone(d.Groups)
		out[i] = d
	}
	return out
}

// FS returns the demo documents as a read-only file system, with the paths
// of Document.Path.
func FS() fs.FS { return docs }

// Read returns the text of the demo document at path. The error wraps
// fs.ErrNotExist for an unknown path.
func Read(path string) (string, error) {
	b, err := fs.ReadFile(docs, path)
	if err != nil {
		return "", fmt.Errorf("demo: read %s: %w", path, err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("demo: %s is not valid UTF-8", path)
	}
	return string(b), nil
}
