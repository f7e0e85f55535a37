// Package chunker splits a Markdown or plain-text document into chunks of at
// most a given number of tokens for embedding and retrieval.
//
// Split is aware of Markdown structure and of Chinese text:
//
//   - ATX headings ("## Title") start a new section. Every chunk of a
//     section begins with a line holding its heading path ("上传限制 >
//     错误码"), so a chunk read on its own still says what it is about.
//     Runs of spaces and tabs in a title become one space.
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
//
// Split takes time and memory linear in the length of the text (plus the
// chunks it returns): it reads the text once, front to back, keeps only
// the units of the chunk being packed, and finds each cut by a search
// that counts a few pieces of about a chunk's length (see search). The
// searches assume that a longer text never counts fewer tokens, as
// tokenizers nearly always do; every chunk returned is counted all the
// same, so MaxTokens holds when the assumption fails (a chunk may then
// hold less than it could).
package chunker

import "context"

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
// content gives no chunks. Split checks ctx before every count and
// returns ctx.Err() once ctx is done.
func Split(ctx context.Context, text string, opts Options) ([]Chunk, error) {
	pieces, err := split(ctx, text, opts)
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
func split(ctx context.Context, text string, opts Options) ([]piece, error) {
	opts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc := Normalize(text)
	p := &planner{ctx: ctx, doc: doc, opts: opts, step: 4 * opts.MaxTokens}
	pieces, err := p.pack(p.units(parseMarkdown(doc)))
	if err != nil {
		return nil, err
	}
	for i := range pieces {
		pieces[i].Ordinal = i
	}
	return pieces, nil
}
