package chunker

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseMarkdown(t *testing.T) {
	doc := strings.Join([]string{
		"前言段落。",
		"# 上传限制 #",
		"正文第一行",
		"正文第二行",
		"- 列表一",
		"  续行",
		"2. 列表二",
		"## 错误码",
		"```sql",
		"# 不是标题",
		"SELECT 1;",
		"```",
		"| 码 | 含义 |",
		"|---|:---:|",
		"| 413 | 太大 |",
		"#### 深层",
		"文字",
		"## 管理员",
		"    # 缩进四格不是标题",
		"#没有空格不是标题",
		"~~~",
		"未闭合的围栏",
	}, "\n")
	type got struct {
		path  string
		kinds []blockKind
		texts []string
	}
	var sections []got
	section := -1
	for b := range parseMarkdown(doc) {
		if b.section != section {
			section = b.section
			sections = append(sections, got{path: strings.Join(b.path, " > ")})
		}
		g := &sections[len(sections)-1]
		g.kinds = append(g.kinds, b.kind)
		g.texts = append(g.texts, doc[b.start:b.end])
	}
	want := []got{
		{"", []blockKind{paragraphBlock}, []string{"前言段落。"}},
		{"上传限制", []blockKind{paragraphBlock, listItemBlock, listItemBlock},
			[]string{"正文第一行\n正文第二行", "- 列表一\n  续行", "2. 列表二"}},
		{"上传限制 > 错误码", []blockKind{codeBlock, tableBlock},
			[]string{"```sql\n# 不是标题\nSELECT 1;\n```", "| 码 | 含义 |\n|---|:---:|\n| 413 | 太大 |"}},
		{"上传限制 > 错误码 > 深层", []blockKind{paragraphBlock}, []string{"文字"}},
		{"上传限制 > 管理员", []blockKind{paragraphBlock, codeBlock},
			[]string{"    # 缩进四格不是标题\n#没有空格不是标题", "~~~\n未闭合的围栏"}},
	}
	assert.Equal(t, want, sections)
}
