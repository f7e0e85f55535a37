package chunker

import (
	"iter"
	"strings"
)

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
	// section numbers the heading lines: the blocks under the same heading
	// line have the same section (0 before the first heading).
	section int
	// path is the heading path of the block's section: the non-empty
	// titles of the open headings, outermost first.
	path []string
	// parent is the section of the heading whose title is path's next to
	// last, -1 when path has fewer than two: blocks with the same parent
	// share all of path but its last title.
	parent int
}

// parseMarkdown yields the blocks of doc in order. It understands ATX
// headings ("## Title"), fenced code blocks (``` or ~~~), pipe tables with
// a delimiter row and list items; everything else is paragraphs. Headings
// inside code fences are code. It reads doc line by line and keeps nothing
// but the open headings, and reads each line a bounded number of times.
func parseMarkdown(doc string) iter.Seq[block] {
	// A line is the range [s, lineEnd(s)); the next one starts after its
	// newline. The last line ends at len(doc), so s <= len(doc) means "a
	// line starts at s" (an empty one when doc ends with a newline).
	lineEnd := func(s int) int {
		if i := strings.IndexByte(doc[s:], '\n'); i >= 0 {
			return s + i
		}
		return len(doc)
	}
	text := func(s int) string { return doc[s:lineEnd(s)] }
	blank := func(s int) bool { return strings.TrimSpace(text(s)) == "" }
	tableAt := func(s int) bool {
		e := lineEnd(s)
		return e < len(doc) && strings.Contains(doc[s:e], "|") && isDelimiterRow(text(e+1))
	}
	// interrupts reports whether the line at s starts a block that ends a
	// paragraph or list item.
	interrupts := func(s int) bool {
		l := text(s)
		_, _, heading := atxHeading(l)
		_, fence := openFence(l)
		return strings.TrimSpace(l) == "" || heading || fence || isListItem(l) || tableAt(s)
	}
	return func(yield func(block) bool) {
		var (
			stack   []headingLevel
			path    []string
			section int
			parent  = -1
		)
		emit := func(kind blockKind, start, end int) bool {
			return yield(block{kind: kind, start: start, end: end, section: section, path: path, parent: parent})
		}
		for s := 0; s <= len(doc); {
			e := lineEnd(s)
			l := doc[s:e]
			if blank(s) {
				s = e + 1
				continue
			}
			if level, title, ok := atxHeading(l); ok {
				for len(stack) > 0 && stack[len(stack)-1].level >= level {
					stack = stack[:len(stack)-1]
				}
				section++
				stack = append(stack, headingLevel{level: level, title: collapseBlanks(title), section: section})
				path, parent = headingPath(stack)
				s = e + 1
				continue
			}
			if f, ok := openFence(l); ok {
				// The block runs to the closing fence, or to the end of doc.
				last, j := e, e+1
				for j <= len(doc) {
					je := lineEnd(j)
					closed := f.closedBy(doc[j:je])
					last, j = je, je+1
					if closed {
						break
					}
				}
				if !emit(codeBlock, s, last) {
					return
				}
				s = j
				continue
			}
			// A table runs from its header and delimiter rows over the rows
			// with a pipe; a paragraph or list item over the lines that
			// start no other block.
			kind, last := paragraphBlock, e
			if tableAt(s) {
				kind, last = tableBlock, lineEnd(e+1)
			} else if isListItem(l) {
				kind = listItemBlock
			}
			j := last + 1
			for j <= len(doc) && !interrupts(j) && (kind != tableBlock || strings.Contains(text(j), "|")) {
				last = lineEnd(j)
				j = last + 1
			}
			if !emit(kind, s, last) {
				return
			}
			s = j
		}
	}
}

// headingLevel is one open heading.
type headingLevel struct {
	level   int
	title   string
	section int // the section the heading starts
}

// collapseBlanks replaces each run of spaces and tabs in title with one
// space. Every chunk of a section repeats its heading path, and a counter
// may count such a run as nothing, so a run would otherwise be repeated
// in every chunk at no token cost.
func collapseBlanks(title string) string {
	if !strings.Contains(title, "  ") && !strings.Contains(title, "\t") {
		return title
	}
	var b strings.Builder
	blank := false
	for i := 0; i < len(title); i++ {
		c := title[i]
		if c == ' ' || c == '\t' {
			blank = true
			continue
		}
		if blank {
			b.WriteByte(' ')
			blank = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// headingPath returns the non-empty titles of stack, outermost first, and
// the section of the heading of the next to last one (-1 if none).
func headingPath(stack []headingLevel) ([]string, int) {
	path := make([]string, 0, len(stack))
	parent, last := -1, -1
	for _, h := range stack {
		if h.title != "" {
			path = append(path, h.title)
			parent, last = last, h.section
		}
	}
	return path, parent
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
