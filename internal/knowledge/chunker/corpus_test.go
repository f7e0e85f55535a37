package chunker

import (
	"fmt"
	"strings"
)

// mixedDocument builds a deterministic Markdown document of at least size
// bytes that exercises every structure Split knows: nested headings,
// Chinese and English prose with decimals and abbreviations, code fences,
// tables, lists and an unpunctuated run longer than any chunk.
func mixedDocument(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "# 第%d章 文件上传 Chapter %d\n\n", i, i)
		fmt.Fprintf(&b, "单个上传文件最大为20MB，超过限制时接口返回 HTTP 413，错误码为 ERR_FILE_TOO_LARGE。"+
			"管理员（admin）单个文件上限为100MB！批量上传的总容量上限为200MB；节假日顺延……你知道吗？\n\n")
		fmt.Fprintf(&b, "## English section %d\n\n", i)
		b.WriteString("The maximum size of a single uploaded file is 20.5MB, e.g. for images. " +
			"Requests above it return HTTP 413 with error code ERR_FILE_TOO_LARGE. " +
			"Version v1.2.3 raised the limit for Dr. Smith's team, i.e. The ops group. " +
			"See https://example.com/docs/upload.html for details.\nThis line is hard\nwrapped in the source.\n\n")
		b.WriteString("```yaml\n# config/app.yaml\nupload:\n  max_file_size: 20MB\n  admin_max_file_size: 100MB\n```\n\n")
		b.WriteString("| 支付方式 | 到账时间 |\n|---|---|\n| 支付宝/微信 | 1–3 个工作日 |\n| 银行卡 | 3–7 个工作日 |\n| 信用卡 | 7–15 个工作日 |\n\n")
		b.WriteString("- 支持 PDF、DOCX、XLSX 文件。\n- 图片支持 PNG 和 JPG。\n  续行说明。\n1. First step.\n2. Second step.\n\n")
		fmt.Fprintf(&b, "### 深层标题 %d\n\n", i)
		if i%3 == 0 {
			b.WriteString(strings.Repeat("这是一段没有任何标点符号的超长文本", 40) + "\n\n")
		}
		b.WriteString(strings.Repeat("RAG 先检索再生成，", 30) + "最后引用来源。\n\n")
	}
	return b.String()
}
