package attachment

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDocumentXML bounds how much of word/document.xml Text inflates, so a
// small archive cannot expand into gigabytes (a ZIP bomb).
const maxDocumentXML = 64 << 20

// errNoText is returned by Text when a file holds no extractable text.
var errNoText = errors.New("attachment: the file has no text")

// Text returns the plain text of data, whose type Sniff returned.
func Text(mediaType string, data []byte) (string, error) {
	var (
		text string
		err  error
	)
	switch mediaType {
	case TypeText, TypeMarkdown:
		text = string(data)
	case TypeDOCX:
		text, err = docxText(data)
	case TypePDF:
		text, err = pdfText(data)
	default:
		return "", fmt.Errorf("attachment: no text extraction for %s", mediaType)
	}
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", errNoText
	}
	return text, nil
}

// docxText reads the paragraphs of a DOCX's word/document.xml: the text of
// its w:t runs, a tab for w:tab, a line break for w:br and w:cr, and a new
// line after each w:p.
func docxText(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("attachment: docx: %w", err)
	}
	for _, f := range zr.File {
		if f.Name != "word/document.xml" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return "", fmt.Errorf("attachment: docx: %w", err)
		}
		defer rc.Close()
		return wordText(io.LimitReader(rc, maxDocumentXML))
	}
	return "", errors.New("attachment: docx: no word/document.xml")
}

// wordText walks WordprocessingML and collects its text.
func wordText(r io.Reader) (string, error) {
	const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	dec := xml.NewDecoder(r)
	var b strings.Builder
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", fmt.Errorf("attachment: docx: %w", err)
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
				b.WriteByte('\t')
			case "br", "cr":
				b.WriteByte('\n')
			}
		case xml.EndElement:
			if t.Name.Space != w {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				b.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
}
