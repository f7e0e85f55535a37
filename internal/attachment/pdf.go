package attachment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// PageLimitError is a PDF whose page tree holds more pages (or more
// nodes) than Limits.MaxPDFPages allows: the attachment is
// FAILED(TOO_MANY_PAGES). The page tree is walked, never its declared
// /Count, which a file may set to anything.
type PageLimitError struct{ Max int }

func (e *PageLimitError) Error() string {
	return fmt.Sprintf("attachment: pdf: the page tree holds more than %d pages", e.Max)
}

// The bounds of a PDF's structure that are not settings: the depth of
// the page tree, the streams of one page's /Contents, a font's
// /Differences, the decompressed size of a ToUnicode CMap and the
// strings it maps to (ISO 32000-1 allows 512 bytes), the fonts a file's
// encodings are kept for, and the operands of one operator.
const (
	maxTreeDepth     = 64
	maxContentParts  = 4096
	maxDifferences   = 512
	maxCMapBytes     = 512 << 10
	maxCMapString    = 512
	maxCachedFonts   = 256
	maxOperands      = 64
	maxArrayElements = 8192
	maxOperandBytes  = 1 << 20
)

// pdfText extracts the text of a PDF into out with
// github.com/ledongthuc/pdf for the file's objects and streams
// (internal/attachment/README.md) and its own reading of the pages'
// content streams, so that every step is bounded by lim:
//
//   - the page tree is walked and its page objects counted before any
//     page is read: more than MaxPDFPages is a PageLimitError;
//   - pages are read one by one, in order, each content stream through a
//     reader that stops at MaxStreamBytes decompressed bytes, all streams
//     of the file together at MaxInflatedBytes;
//   - the text goes into out, which stops the extraction at its bound;
//   - a ToUnicode CMap is used only when it fits maxCMapBytes and maps
//     to strings of at most maxCMapString bytes, so that no code can
//     expand without bound;
//   - ctx is checked between pages, streams and every few hundred
//     operators.
//
// The library panics on some malformed files; a panic is an error here
// (or, inside one content stream, the end of that stream). It reports
// whether a stream or the file's inflated bytes were cut at their bound.
func pdfText(ctx context.Context, data []byte, lim Limits, out *textBudget) (st pdfStats, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("attachment: pdf: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return st, fmt.Errorf("attachment: pdf: %w", err)
	}
	x := &pdfExtractor{ctx: ctx, lim: lim, out: out, fonts: map[string]pdf.TextEncoding{}}
	root := r.Trailer().Key("Root").Key("Pages")
	if _, err := x.walk(root, nil); err != nil {
		return x.stats, err
	}
	_, err = x.walk(root, x.page)
	return x.stats, err
}

// pdfStats says what an extraction read.
type pdfStats struct {
	Pages     int   // pages whose content was read
	Inflated  int64 // decompressed bytes read from streams
	Truncated bool  // a stream or the file's streams hit their bound
}

// pdfExtractor holds one extraction's state.
type pdfExtractor struct {
	ctx   context.Context
	lim   Limits
	out   *textBudget
	stats pdfStats
	// fonts caches the text encoding of each font of the file, by
	// fontKey.
	fonts map[string]pdf.TextEncoding
}

// errInflatedFull ends an extraction whose streams reached
// Limits.MaxInflatedBytes; the text read so far is kept.
var errInflatedFull = errors.New("attachment: pdf: the decompressed bytes reached their bound")

// walk visits the page tree under root depth first, in page order,
// calling visit with each page and the resources it inherits; a nil
// visit only counts. It refuses a tree of more than MaxPDFPages pages or
// of more nodes than twice that (a tree whose nodes repeat each other, a
// DAG or a cycle, stops there too) and returns the number of pages.
func (x *pdfExtractor) walk(root pdf.Value, visit func(page, resources pdf.Value) error) (int, error) {
	type frame struct {
		node, resources pdf.Value
		depth           int
	}
	maxNodes := 2*x.lim.MaxPDFPages + 64
	stack := []frame{{node: root}}
	pages, nodes := 0, 0
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if nodes++; nodes > maxNodes {
			return pages, &PageLimitError{Max: x.lim.MaxPDFPages}
		}
		if nodes%256 == 0 {
			if err := x.ctx.Err(); err != nil {
				return pages, err
			}
		}
		if f.node.Kind() != pdf.Dict {
			continue
		}
		res := f.node.Key("Resources")
		if res.Kind() != pdf.Dict {
			res = f.resources
		}
		kids := f.node.Key("Kids")
		if kids.Kind() == pdf.Array && f.node.Key("Type").Name() != "Page" {
			n := kids.Len()
			if f.depth >= maxTreeDepth {
				return pages, errors.New("attachment: pdf: the page tree is too deep")
			}
			if nodes+len(stack)+n > maxNodes {
				return pages, &PageLimitError{Max: x.lim.MaxPDFPages}
			}
			for i := n - 1; i >= 0; i-- {
				stack = append(stack, frame{node: kids.Index(i), resources: res, depth: f.depth + 1})
			}
			continue
		}
		if pages++; pages > x.lim.MaxPDFPages {
			return pages, &PageLimitError{Max: x.lim.MaxPDFPages}
		}
		if visit != nil {
			if err := visit(f.node, res); err != nil {
				return pages, err
			}
		}
	}
	return pages, nil
}

// page reads one page's content streams into the text and ends it with a
// paragraph break.
func (x *pdfExtractor) page(page, resources pdf.Value) error {
	if err := x.ctx.Err(); err != nil {
		return err
	}
	x.stats.Pages++
	contents := page.Key("Contents")
	var parts []pdf.Value
	switch contents.Kind() {
	case pdf.Stream:
		parts = []pdf.Value{contents}
	case pdf.Array:
		for i := range min(contents.Len(), maxContentParts) {
			parts = append(parts, contents.Index(i))
		}
	}
	in := &contentInterp{x: x, fonts: fontsOf(resources), used: map[string]pdf.TextEncoding{}}
	if err := in.run(parts); err != nil {
		return err
	}
	return x.out.paragraph()
}

// fontsOf returns the Font dictionary of resources.
func fontsOf(resources pdf.Value) pdf.Value { return resources.Key("Font") }

// open returns a reader of stream v's decompressed bytes capped at max,
// counted against the file's MaxInflatedBytes, or nil when the library
// cannot read it (an unknown filter, a malformed header).
func (x *pdfExtractor) open(v pdf.Value, max int64) (r *cappedReader) {
	if v.Kind() != pdf.Stream || tooWide(v.Key("DecodeParms")) {
		return nil
	}
	defer func() {
		if recover() != nil {
			r = nil
		}
	}()
	return &cappedReader{r: v.Reader(), left: max, x: x}
}

// maxPredictorColumns bounds the /Columns of a stream's PNG predictor,
// which the library allocates a row buffer of before reading anything.
const maxPredictorColumns = 1 << 16

// tooWide reports whether decode parameters (a dictionary, or an array
// of them for a chain of filters) ask for a predictor row wider than
// maxPredictorColumns.
func tooWide(params pdf.Value) bool {
	switch params.Kind() {
	case pdf.Dict:
		return params.Key("Columns").Int64() > maxPredictorColumns
	case pdf.Array:
		for i := range min(params.Len(), 16) {
			if tooWide(params.Index(i)) {
				return true
			}
		}
	}
	return false
}

// cappedReader reads a stream's decompressed bytes up to its own cap and
// the file's remaining MaxInflatedBytes, and turns a panic of the
// library's decoders into the end of the stream.
type cappedReader struct {
	r    io.Reader
	left int64
	x    *pdfExtractor
	// cut says the stream had more bytes than its cap (or than the
	// file's remaining budget) allowed.
	cut bool
}

func (c *cappedReader) Read(p []byte) (n int, err error) {
	room := min(c.left, c.x.lim.MaxInflatedBytes-c.x.stats.Inflated)
	if room <= 0 {
		c.cut = true
		c.x.stats.Truncated = true
		return 0, io.EOF
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	defer func() {
		if recover() != nil {
			n, err = 0, io.EOF
		}
	}()
	n, err = c.r.Read(p)
	c.left -= int64(n)
	c.x.stats.Inflated += int64(n)
	return n, err
}

// inflatedFull reports whether the file's streams used their budget.
func (x *pdfExtractor) inflatedFull() bool { return x.stats.Inflated >= x.lim.MaxInflatedBytes }

// encoding returns the text encoding of font f, cached by fontKey: the
// library's (WinAnsi, MacRoman, a Differences array, a ToUnicode CMap),
// or rawEncoding when the font's maps are beyond their bounds.
func (x *pdfExtractor) encoding(f pdf.Value) pdf.TextEncoding {
	if f.Kind() != pdf.Dict {
		return rawEncoding{}
	}
	key := fontKey(f)
	if enc, ok := x.fonts[key]; ok {
		return enc
	}
	enc := x.newEncoding(f)
	if len(x.fonts) < maxCachedFonts {
		x.fonts[key] = enc
	}
	return enc
}

func (x *pdfExtractor) newEncoding(f pdf.Value) (enc pdf.TextEncoding) {
	defer func() {
		if recover() != nil {
			enc = rawEncoding{}
		}
	}()
	e := f.Key("Encoding")
	identity := e.Kind() == pdf.Name && e.Name() == "Identity-H"
	switch {
	case e.Kind() == pdf.Dict && e.Key("Differences").Len() > maxDifferences:
		return rawEncoding{}
	case identity || e.Kind() == pdf.Null:
		// The library reads the ToUnicode CMap: only one within bounds.
		if tu := f.Key("ToUnicode"); tu.Kind() == pdf.Stream && !x.boundedCMap(tu) {
			return rawEncoding{}
		}
	}
	font := pdf.Font{V: f}
	enc = font.Encoder()
	if identity {
		enc = &twoByteMemo{enc: enc, memo: map[uint16]string{}}
	}
	return enc
}

// fontKey identifies a font within one file by what decides its
// encoding.
func fontKey(f pdf.Value) string {
	e := f.Key("Encoding")
	enc := e.Name()
	if e.Kind() == pdf.Dict {
		enc = "dict:" + strconv.Itoa(e.Key("Differences").Len()) + ":" + e.Key("BaseEncoding").Name()
	}
	tu := f.Key("ToUnicode")
	return f.Key("BaseFont").Name() + "\x00" + f.Key("Subtype").Name() + "\x00" + enc + "\x00" +
		strconv.FormatInt(tu.Key("Length").Int64(), 10) + "\x00" +
		strconv.FormatInt(f.Key("FirstChar").Int64(), 10) + "-" + strconv.FormatInt(f.Key("LastChar").Int64(), 10)
}

// boundedCMap reads CMap stream v (at most maxCMapBytes decompressed)
// and reports whether it ends within that and maps no code to more than
// maxCMapString bytes. The library then reads it again, bounded by the
// same size.
func (x *pdfExtractor) boundedCMap(v pdf.Value) bool {
	r := x.open(v, maxCMapBytes)
	if r == nil {
		return false
	}
	l := newLexer(r)
	for {
		switch l.next() {
		case tokEOF:
			return !r.cut
		case tokString:
			if len(l.buf) > maxCMapString {
				return false
			}
		}
	}
}

// rawEncoding passes a font's codes through as they are (the text budget
// replaces what is not UTF-8).
type rawEncoding struct{}

func (rawEncoding) Decode(raw string) string { return raw }

// twoByteMemo decodes the two-byte codes of an Identity-H font through
// its CMap once per code: the library's CMap decoder scans every mapping
// for each code.
type twoByteMemo struct {
	enc  pdf.TextEncoding
	memo map[uint16]string
}

// maxMemoText bounds the decoded text of one code that twoByteMemo keeps.
const maxMemoText = 16

func (m *twoByteMemo) Decode(raw string) string {
	var b []byte
	for len(raw) >= 2 {
		code := uint16(raw[0])<<8 | uint16(raw[1])
		s, ok := m.memo[code]
		if !ok {
			s = m.enc.Decode(raw[:2])
			if len(s) <= maxMemoText {
				m.memo[code] = s
			}
		}
		b = append(b, s...)
		raw = raw[2:]
	}
	if raw != "" {
		b = append(b, m.enc.Decode(raw)...)
	}
	return string(b)
}
