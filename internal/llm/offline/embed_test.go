package offline_test

import (
	"context"
	"math"
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
)

var corpus = map[string]string{
	"upload":   "单个上传文件最大为20MB。超过限制时，接口返回错误码ERR_FILE_TOO_LARGE，并提示用户压缩文件后重试。",
	"refund":   "退款会在审核通过后1到5个工作日内原路退回。银行卡退款的到账时间取决于发卡银行，节假日顺延。",
	"hnsw":     "在PostgreSQL中安装pgvector扩展后，可以用CREATE INDEX … USING hnsw创建HNSW索引。HNSW查询快，但构建较慢、占用内存较多。",
	"password": "用户可以在个人设置页面修改登录密码。连续输错五次密码后，账号会被锁定30分钟。",
	"refundEN": "Refunds are returned to the original payment method within 5 business days. Bank card refunds may take longer depending on the issuing bank.",
	"uploadEN": "Uploaded files larger than 20 MB are rejected with the error code ERR_FILE_TOO_LARGE.",
	"summary":  "当会话历史超过预算时，系统把较早的用户问题压缩成摘要，只记录意图和结果。",
}

func embedOne(t *testing.T, m llm.Model, s string) []float32 {
	t.Helper()
	v, err := m.Embed(context.Background(), []string{s})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func TestEmbedShapeAndDeterminism(t *testing.T) {
	m := offline.New(offline.Options{})
	texts := []string{"上传文件最大是多少？", "How long do refunds take?", "", "的了吗"}
	a, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := offline.New(offline.Options{}).Embed(context.Background(), texts)
	for i := range texts {
		if len(a[i]) != domain.EmbeddingDimensions {
			t.Fatalf("%q: %d dims", texts[i], len(a[i]))
		}
		var n float64
		for j, x := range a[i] {
			n += float64(x) * float64(x)
			if x != b[i][j] {
				t.Fatalf("%q: embedding differs between runs at %d", texts[i], j)
			}
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: norm² = %f, want 1", texts[i], n)
		}
	}
	if llm.Cosine(a[0], a[1]) > 0.2 {
		t.Errorf("unrelated texts too similar: %f", llm.Cosine(a[0], a[1]))
	}
	if m.EmbeddingModel() != "offline-hash-1024" {
		t.Errorf("EmbeddingModel = %q", m.EmbeddingModel())
	}
}

func TestEmbedRetrievesTheRightParagraph(t *testing.T) {
	m := offline.New(offline.Options{})
	vecs := map[string][]float32{}
	for k, p := range corpus {
		vecs[k] = embedOne(t, m, p)
	}
	tests := []struct{ question, want string }{
		{"上传文件超过限制返回什么错误码", "upload"},
		{"上传文件最大是多少？", "upload"},
		{"关于上传文件最大：超过以后返回什么错误码？", "upload"},
		{"退款多久到账", "refund"},
		{"银行卡退款多久到账？", "refund"},
		{"PostgreSQL如何创建HNSW索引？", "hnsw"},
		{"HNSW索引有什么缺点？", "hnsw"},
		{"密码输错几次会被锁定？", "password"},
		{"怎么修改登录密码", "password"},
		{"会话摘要记录什么？", "summary"},
		{"How long do refunds take?", "refundEN"},
		{"What error is returned when an uploaded file is too large?", "uploadEN"},
	}
	for _, tc := range tests {
		t.Run(tc.question, func(t *testing.T) {
			q := embedOne(t, m, tc.question)
			best, bestScore := "", -2.0
			for k, v := range vecs {
				if s := llm.Cosine(q, v); s > bestScore || (s == bestScore && k < best) {
					best, bestScore = k, s
				}
			}
			if best != tc.want {
				t.Errorf("closest paragraph = %s (%.3f), want %s (%.3f)", best, bestScore, tc.want, llm.Cosine(q, vecs[tc.want]))
			}
			if bestScore < offline.SuggestedMinEvidenceScore {
				t.Errorf("best score %.3f is below the suggested evidence threshold", bestScore)
			}
		})
	}
	// The seed example: the upload question is closer to the upload
	// paragraph than to the refund paragraph by a clear margin.
	q := embedOne(t, m, "上传文件超过限制返回什么错误码")
	if up, re := llm.Cosine(q, vecs["upload"]), llm.Cosine(q, vecs["refund"]); up-re < 0.2 {
		t.Errorf("upload %.3f vs refund %.3f: margin too small", up, re)
	}
}

func TestEmbedHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := offline.New(offline.Options{}).Embed(ctx, []string{"x"})
	if llm.KindOf(err) != llm.KindCanceled {
		t.Fatalf("err = %v, want canceled", err)
	}
}
