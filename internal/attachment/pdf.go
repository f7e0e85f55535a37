package attachment

import "errors"

// pdfText extracts the text of a PDF. No PDF library is wired yet
// (docs/ENGINE.md, "Attachments"): a PDF is accepted by Sniff but fails
// with PROCESSING_FAILED.
func pdfText([]byte) (string, error) {
	return "", errors.New("attachment: PDF text extraction is not available")
}
