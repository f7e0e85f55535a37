package chunker

import "strings"

// blockKind is the Markdown structure a block came from. It decides how the
// block is cut when it does not fit a chunk.
type blockKind int

const (
	// paragraphBlock is prose: it is always split into sentences.
	paragraphBlock blockKind = iota
	// listItemBlock is one list item with its continuation lines: kept whole
	// when it fits, else split into sentences.
	listItemBlock
	// codeBlock is a fenced code block, fences included: kept whole when it
	// fits, else split between lines.
	codeBlock
	// tableBlock is a pipe table: kept whole when it fits, else split
	// between rows.
	tableBlock
)

// block is a byte range [start, end) of the normalised document.
type block struct {
	kind       blockKind
	start, end int
}

// section is the text under one heading path: every block between a
// heading and the next heading. The text before the first heading is a
// section with an empty path.
type section struct {
	path   []string
	blocks []block
}

// line is the byte range [start, end) of one line, without its newline.
type line struct{ start, end int }

// parseMarkdown splits doc into sections of blocks. It understands ATX
// headings ("## Title"), fenced code blocks (``` or ~~~), pipe tables with
// a delimiter row and list items; everything else is paragraphs. Headings
// inside code fences are code.
func parseMarkdown(doc string) []section {
	lines := splitLines(doc)
	text := func(i int) string { return doc[lines[i].start:lines[i].end] }
	blank := func(i int) bool { return strings.TrimSpace(text(i)) == "" }
	tableAt := func(i int) bool {
		return i+1 < len(lines) && strings.Contains(text(i), "|") && isDelimiterRow(text(i+1))
	}
	// interrupts reports whether line i starts a block that ends a
	// paragraph or list item.
	interrupts := func(i int) bool {
		_, _, heading := atxHeading(text(i))
		_, fence := openFence(text(i))
		return blank(i) || heading || fence || isListItem(text(i)) || tableAt(i)
	}

	var (
		sections []section
		cur      section
		stack    []headingLevel
	)
	add := func(kind blockKind, from, to int) {
		cur.blocks = append(cur.blocks, block{kind: kind, start: lines[from].start, end: lines[to].end})
	}
	for i := 0; i < len(lines); {
		l := text(i)
		if blank(i) {
			i++
			continue
		}
		if level, title, ok := atxHeading(l); ok {
			if len(cur.blocks) > 0 {
				sections = append(sections, cur)
			}
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, headingLevel{level: level, title: title})
			cur = section{path: headingPath(stack)}
			i++
			continue
		}
		if f, ok := openFence(l); ok {
			j := i + 1
			for j < len(lines) && !f.closedBy(text(j)) {
				j++
			}
			last := min(j, len(lines)-1)
			add(codeBlock, i, last)
			i = last + 1
			continue
		}
		if tableAt(i) {
			j := i + 2
			for j < len(lines) && !blank(j) && strings.Contains(text(j), "|") && !interrupts(j) {
				j++
			}
			add(tableBlock, i, j-1)
			i = j
			continue
		}
		kind := paragraphBlock
		if isListItem(l) {
			kind = listItemBlock
		}
		j := i + 1
		for j < len(lines) && !interrupts(j) {
			j++
		}
		add(kind, i, j-1)
		i = j
	}
	if len(cur.blocks) > 0 {
		sections = append(sections, cur)
	}
	return sections
}

// splitLines returns the lines of doc.
func splitLines(doc string) []line {
	var lines []line
	start := 0
	for start <= len(doc) {
		i := strings.IndexByte(doc[start:], '\n')
		if i < 0 {
			lines = append(lines, line{start, len(doc)})
			break
		}
		lines = append(lines, line{start, start + i})
		start += i + 1
	}
	return lines
}

// headingLevel is one open heading.
type headingLevel struct {
	level int
	title string
}

// headingPath returns the non-empty titles of stack, outermost first.
func headingPath(stack []headingLevel) []string {
	path := make([]string, 0, len(stack))
	for _, h := range stack {
		if h.title != "" {
			path = append(path, h.title)
		}
	}
	return path
}

// atxHeading parses an ATX heading line: up to three spaces, one to six
// '#', then a space or the end of the line. The optional closing sequence
// of '#' is removed from the title.
func atxHeading(l string) (level int, title string, ok bool) {
	s, ok := trimIndent(l)
	if !ok {
		return 0, "", false
	}
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, "", false
	}
	title = strings.TrimSpace(s[level:])
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		title = strings.TrimSpace(t)
	}
	return level, title, true
}

// trimIndent removes up to three leading spaces; a line indented further
// starts no block.
func trimIndent(l string) (string, bool) {
	n := 0
	for n < len(l) && n < 4 && l[n] == ' ' {
		n++
	}
	if n == 4 {
		return "", false
	}
	return l[n:], true
}

// fence is an open code fence.
type fence struct {
	char byte
	size int
}

// openFence parses a fence opening line: up to three spaces and at least
// three backticks or tildes. A backtick fence's info string must not
// contain a backtick.
func openFence(l string) (fence, bool) {
	s, ok := trimIndent(l)
	if !ok || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return fence{}, false
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || (s[0] == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return fence{}, false
	}
	return fence{char: s[0], size: n}, true
}

// closedBy reports whether l closes f: the same character, at least as
// many of it, and nothing else but spaces.
func (f fence) closedBy(l string) bool {
	s, ok := trimIndent(l)
	if !ok {
		return false
	}
	n := 0
	for n < len(s) && s[n] == f.char {
		n++
	}
	return n >= f.size && strings.TrimSpace(s[n:]) == ""
}

// isDelimiterRow reports whether l is a table delimiter row such as
// "|---|:--:|": only pipes, dashes, colons and spaces, with a pipe and a
// dash.
func isDelimiterRow(l string) bool {
	s := strings.TrimSpace(l)
	if !strings.Contains(s, "|") || !strings.Contains(s, "-") {
		return false
	}
	return strings.Trim(s, "|-: \t") == ""
}

// isListItem reports whether l starts a list item: a bullet (-, *, +) or
// an ordinal ("1." or "1)") followed by a space, at any indentation.
func isListItem(l string) bool {
	s := strings.TrimLeft(l, " \t")
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
		return true
	}
	n := 0
	for n < len(s) && n < 10 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n > 0 && n < 10 && n+1 < len(s) && (s[n] == '.' || s[n] == ')') && (s[n+1] == ' ' || s[n+1] == '\t')
}
