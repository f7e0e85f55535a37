// Package chunker splits a Markdown or plain-text document into chunks of at
// most a given number of tokens for embedding and retrieval.
//
// Split is aware of Markdown structure and of Chinese text:
//
//   - ATX headings ("## Title") start a new section. Every chunk of a
//     section begins with a line holding its heading path ("上传限制 >
//     错误码"), so a chunk read on its own still says what it is about.
//   - Fenced code blocks, pipe tables and list items stay whole when they
//     fit in a chunk; larger ones are cut between lines, rows or sentences.
//   - Prose is cut into sentences, Chinese (。！？；…) and English (". "
//     but not "20.5MB", "e.g." or "v1.2.3"), and the sentences are packed
//     greedily. A sentence longer than a chunk is cut between clauses, then
//     between words (every CJK character is a word), then between
//     characters.
//   - Each chunk after the first of a section starts with the last whole
//     sentences of the previous chunk, up to OverlapTokens. Overlap never
//     crosses a heading.
//
// Chunk token counts are exact: every chunk's Content is counted as a
// whole, so no chunk exceeds MaxTokens whatever the counter's merging
// behaviour. Split is deterministic and never returns an empty chunk.
package chunker

// HeadingSeparator joins the headings of a heading path.
const HeadingSeparator = " > "

// Chunk is one piece of a document.
type Chunk struct {
	// Ordinal is the chunk's position in the document: 0, 1, 2, ….
	Ordinal int
	// Content is the chunk text: the Heading line (when Heading is not
	// empty) followed by the body.
	Content string
	// Tokens is the Counter's count of Content.
	Tokens int
	// Heading is the heading path of the chunk's section, outermost first,
	// joined with HeadingSeparator, as it appears on the first line of
	// Content. Outer headings are dropped and the nearest one is truncated
	// with "…" when the path would take more than a quarter of MaxTokens.
	// It is empty before the first heading.
	Heading string
}

// Split cuts text into chunks. text is normalised first (see Normalize).
// It returns a BAD_USER_INPUT domain error for invalid options, or when
// MaxTokens is too small to hold a single character of text. Text with no
// content gives no chunks.
func Split(text string, opts Options) ([]Chunk, error) {
	pieces, err := split(text, opts)
	if err != nil {
		return nil, err
	}
	chunks := make([]Chunk, len(pieces))
	for i, p := range pieces {
		chunks[i] = p.Chunk
	}
	return chunks, nil
}

// piece is a chunk with the bookkeeping tests use to check overlap and
// coverage.
type piece struct {
	Chunk
	// section is the index of the chunk's section.
	section int
	// bodyStart is the byte offset in Content where the body starts, after
	// the heading line.
	bodyStart int
	// freshStart is the byte offset in Content where the text that the
	// previous chunk did not hold starts (bodyStart when no overlap).
	freshStart int
}

// split is Split with bookkeeping.
func split(text string, opts Options) ([]piece, error) {
	opts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	doc := Normalize(text)
	var out []piece
	for si, sec := range parseMarkdown(doc) {
		p := &planner{doc: doc, opts: opts}
		p.heading = p.headingLine(sec.path)
		if p.heading != "" {
			p.prefix = p.heading + "\n"
		}
		units, err := p.units(sec.blocks)
		if err != nil {
			return nil, err
		}
		for _, pc := range p.pack(units) {
			pc.Ordinal = len(out)
			pc.section = si
			out = append(out, pc)
		}
	}
	return out, nil
}
