package llm_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
)

func TestNeedsHistory(t *testing.T) {
	tests := []struct {
		question string
		want     bool
	}{
		// docs/ENGINE.md D5: standalone questions.
		{"什么是RAG？", false},
		{"PostgreSQL如何创建HNSW索引？", false},
		// docs/ENGINE.md D5: questions that depend on history.
		{"那它有什么缺点？", true},
		{"这个配置在哪里改？", true},
		{"第二种方案呢？", true},
		// The follow-ups of docs/ENGINE.md D1 and D5.
		{"那超过以后返回什么错误码？", true},
		{"这个限制管理员也一样吗？", true},
		{"刚才提到的配置在哪里修改？", true},
		{"那银行卡呢", true},
		{"那信用卡呢", true},
		{"如果节假日呢", true},
		{"退款多久到账", false},
		{"上传文件最大是多少？", false},
		// More Chinese references.
		{"那么应该怎么办？", true},
		{"它们有什么区别？", true},
		{"上面说的第一个步骤是什么？", true},
		{"前面的例子能再解释一下吗？", true},
		{"之前那个错误码是什么意思？", true},
		{"这些参数都要配置吗？", true},
		{"还有呢？", true},
		{"银行卡呢？", true},
		{"第一种方法的缺点是什么？", true},
		{"第四台设备会报什么错？", true},
		{"其中哪个更快？", true},
		// Very short Chinese questions.
		{"为什么？", true},
		{"怎么改？", true},
		{"多少钱？", true},
		{"然后呢？", true},
		// Short but standalone: definitions and named things.
		{"什么是向量？", false},
		{"向量是什么？", false},
		{"HNSW怎么建？", false},
		{"如何申请退款报销流程？", false},
		{"第一次登录需要做什么？", false},
		{"其它部门的报销流程是怎样的？", false},
		{"如果文件超过限制，那会返回哪个错误码？", false},
		// English.
		{"What is RAG?", false},
		{"How do I create an HNSW index in PostgreSQL?", false},
		{"How long do refunds take?", false},
		{"What is the error code that is returned when an upload exceeds the size limit?", false},
		{"What about bank cards?", true},
		{"How about the admin users?", true},
		{"And for enterprise accounts?", true},
		{"Same for the mobile app?", true},
		{"Is it free?", true},
		{"What does that mean?", true},
		{"Can you explain the second one?", true},
		{"Which of these is faster?", true},
		{"Where do I change those settings?", true},
		{"Why?", true},
		{"What about the first?", true},
		{"Is the latter faster?", true},
		{"What is the first step to install pgvector?", false},
		{"What does the third chapter of the guide cover?", false},
		{"What error does the fourth device get?", true},
		{"What happens to the fourth device?", true},
		{"Which is the last option?", true},
		{"Any examples?", true},
		{"Explain it", true},
		{"Explain pgvector", false},
		{"What's HNSW?", false},
		// Mixed scripts.
		{"那PostgreSQL呢？", true},
		{"What about 银行卡?", true},
		// Blank.
		{"", false},
		{"   ", false},
	}
	for _, tc := range tests {
		t.Run(tc.question, func(t *testing.T) {
			if got := llm.NeedsHistory(tc.question, true); got != tc.want {
				t.Errorf("NeedsHistory(%q, true) = %v, want %v", tc.question, got, tc.want)
			}
			if llm.NeedsHistory(tc.question, false) {
				t.Errorf("NeedsHistory(%q, false) = true, want false without history", tc.question)
			}
		})
	}
}
