package attachment

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ragchat/ragchat/internal/defaults"
)

// Limits bound the work of extracting one file's text (docs/API.md,
// "Attachments"): what an upload designed to be expensive can cost is
// set here, whatever the file declares about itself.
type Limits struct {
	// MaxTextBytes bounds the text kept of one file, in bytes of UTF-8;
	// the extraction stops there and the rest is not indexed.
	MaxTextBytes int
	// MaxPDFPages bounds the page objects of a PDF's page tree (counted,
	// never taken from /Count); a PDF with more is FAILED(TOO_MANY_PAGES).
	MaxPDFPages int
	// MaxStreamBytes bounds the decompressed bytes read from one stream:
	// a PDF content stream, or a DOCX's word/document.xml.
	MaxStreamBytes int64
	// MaxInflatedBytes bounds the decompressed bytes read from all of one
	// PDF's streams together.
	MaxInflatedBytes int64
}

// DefaultLimits are the limits of an extraction when Options.Limits
// leaves a field 0.
var DefaultLimits = Limits{
	MaxTextBytes:     4 << 20,
	MaxPDFPages:      2000,
	MaxStreamBytes:   16 << 20,
	MaxInflatedBytes: 128 << 20,
}

// withDefaults fills the fields of l that are 0 from DefaultLimits.
func (l Limits) withDefaults() Limits {
	l.MaxTextBytes = defaults.Positive(l.MaxTextBytes, DefaultLimits.MaxTextBytes)
	l.MaxPDFPages = defaults.Positive(l.MaxPDFPages, DefaultLimits.MaxPDFPages)
	l.MaxStreamBytes = defaults.Positive(l.MaxStreamBytes, DefaultLimits.MaxStreamBytes)
	l.MaxInflatedBytes = defaults.Positive(l.MaxInflatedBytes, DefaultLimits.MaxInflatedBytes)
	return l
}

// An Extraction is the text of a file and what its extraction read.
type Extraction struct {
	Text string
	// Truncated says a bound stopped the extraction: the text bound, a
	// stream's or the file's decompressed bytes. The text read until then
	// is kept.
	Truncated bool
	// Pages is the number of PDF pages read; Inflated the decompressed
	// bytes read from the file's streams.
	Pages    int
	Inflated int64
}

// errNoText is returned by Extract when a file holds no extractable
// text.
var errNoText = errors.New("attachment: the file has no text")

// Extract returns the plain text of data, whose type Sniff returned,
// within lim (0 fields take DefaultLimits): text and Markdown as they are,
// DOCX from word/document.xml, PDF page by page (pdfText). The text is
// cut at lim.MaxTextBytes. A file without text is errNoText, a PDF with
// too many pages a *PageLimitError; ctx ends the extraction with its
// error.
func Extract(ctx context.Context, mediaType string, data []byte, lim Limits) (Extraction, error) {
	lim = lim.withDefaults()
	out := newTextBudget(lim.MaxTextBytes)
	var (
		ex  Extraction
		err error
	)
	switch mediaType {
	case TypeText, TypeMarkdown:
		err = out.WriteString(string(data))
	case TypeDOCX:
		ex.Inflated, err = docxText(ctx, data, lim, out)
	case TypePDF:
		var st pdfStats
		st, err = pdfText(ctx, data, lim, out)
		ex.Pages, ex.Inflated, ex.Truncated = st.Pages, st.Inflated, st.Truncated
	default:
		return ex, fmt.Errorf("attachment: no text extraction for %s", mediaType)
	}
	switch {
	case errors.Is(err, errTextFull), errors.Is(err, errInflatedFull):
		ex.Truncated = true
	case errors.Is(err, errStreamCut):
		ex.Truncated = true
	case err != nil:
		return ex, err
	}
	ex.Text = out.String()
	if strings.TrimSpace(ex.Text) == "" {
		return ex, errNoText
	}
	return ex, nil
}

// errStreamCut ends a DOCX whose document.xml passed MaxStreamBytes.
var errStreamCut = errors.New("attachment: a stream passed its bound")

// docxText reads the paragraphs of a DOCX's word/document.xml into out,
// at most lim.MaxStreamBytes of it (a ZIP bomb inflates no further), and
// returns how many bytes of it were read.
func docxText(ctx context.Context, data []byte, lim Limits, out *textBudget) (int64, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0, fmt.Errorf("attachment: docx: %w", err)
	}
	for _, f := range zr.File {
		if f.Name != "word/document.xml" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return 0, fmt.Errorf("attachment: docx: %w", err)
		}
		defer rc.Close()
		cr := &countingReader{r: io.LimitReader(rc, lim.MaxStreamBytes+1)}
		err = wordText(ctx, cr, out)
		if cr.n > lim.MaxStreamBytes && !errors.Is(err, errTextFull) && ctx.Err() == nil {
			err = errStreamCut // the XML ends where it was cut, mid-element
		}
		return min(cr.n, lim.MaxStreamBytes), err
	}
	return 0, errors.New("attachment: docx: no word/document.xml")
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// wordText walks WordprocessingML and writes its text into out: the text
// of its w:t runs, a tab for w:tab, a line break for w:br and w:cr, and a
// new line after each w:p.
func wordText(ctx context.Context, r io.Reader, out *textBudget) error {
	const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	dec := xml.NewDecoder(r)
	inText := false
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("attachment: docx: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != w {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				err = out.WriteString("\t")
			case "br", "cr":
				err = out.WriteString("\n")
			}
		case xml.EndElement:
			if t.Name.Space != w {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				err = out.WriteString("\n")
			}
		case xml.CharData:
			if inText {
				err = out.WriteString(string(t))
			}
		}
		if err != nil {
			return err
		}
	}
}
