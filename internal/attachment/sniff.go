package attachment

import (
	"archive/zip"
	"bytes"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
)

// The media types an attachment may have.
const (
	TypeText     = "text/plain"
	TypeMarkdown = "text/markdown"
	TypePDF      = "application/pdf"
	TypeDOCX     = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
)

// Sniff returns the media type of data, decided from the bytes alone:
//
//   - a PDF starts with "%PDF-";
//   - a DOCX is a ZIP archive holding word/document.xml;
//   - text is valid UTF-8 without NUL bytes; it is labelled text/markdown
//     when name ends in .md or .markdown (the name only picks the label of
//     text, never the kind), text/plain otherwise.
//
// Anything else is BAD_USER_INPUT with field "file", reason
// "UNSUPPORTED_MEDIA_TYPE" and the detected type in "mediaType".
func Sniff(name string, data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return TypePDF, nil
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		if isDOCX(data) {
			return TypeDOCX, nil
		}
	case len(data) > 0 && utf8.Valid(data) && bytes.IndexByte(data, 0) < 0:
		switch strings.ToLower(path.Ext(name)) {
		case ".md", ".markdown":
			return TypeMarkdown, nil
		}
		return TypeText, nil
	}
	detected := http.DetectContentType(data)
	return "", domain.Errorf(domain.CodeBadUserInput,
		"the file's type (%s) is not accepted: upload text, Markdown, PDF or DOCX", detected).
		With("field", "file").With("reason", "UNSUPPORTED_MEDIA_TYPE").With("mediaType", detected)
}

// isDOCX reports whether data is a ZIP archive with word/document.xml.
func isDOCX(data []byte) bool {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return false
	}
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			return true
		}
	}
	return false
}
