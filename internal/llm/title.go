package llm

import (
	"strings"
	"unicode"
)

// MaxTitleRunes caps a conversation title.
const MaxTitleRunes = 30

// DefaultTitle names a conversation whose first question is blank.
const DefaultTitle = "新对话"

// ShortTitle turns text into a conversation title: whitespace collapsed,
// surrounding quotes and trailing question marks or full stops removed, at
// most MaxTitleRunes runes (an ellipsis marks a cut).
func ShortTitle(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	t = strings.Trim(t, "\"'“”‘’「」《》`*# ")
	t = strings.TrimRightFunc(t, func(r rune) bool {
		return strings.ContainsRune("?？.。!！;；:：,，、", r) || unicode.IsSpace(r)
	})
	if t == "" {
		return DefaultTitle
	}
	r := []rune(t)
	if len(r) > MaxTitleRunes {
		t = strings.TrimRightFunc(string(r[:MaxTitleRunes-1]), unicode.IsSpace) + "…"
	}
	return t
}
