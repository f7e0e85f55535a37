package attachment

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ledongthuc/pdf"
)

// maxPDFText bounds the text read from one PDF.
const maxPDFText = 16 << 20

// pdfText extracts the plain text of a PDF with github.com/ledongthuc/pdf
// (docs/ENGINE.md, "Attachments": a pure-Go reader without dependencies,
// kept up to date, that reads the text operators of every page). The
// library panics on some malformed files; a panic is an error here.
func pdfText(data []byte) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", fmt.Errorf("attachment: pdf: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("attachment: pdf: %w", err)
	}
	plain, err := r.GetPlainText()
	if err != nil {
		return "", fmt.Errorf("attachment: pdf: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(plain, maxPDFText))
	if err != nil {
		return "", fmt.Errorf("attachment: pdf: %w", err)
	}
	return string(b), nil
}
