package attachment_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	attach "github.com/ragchat/ragchat/internal/attachment"
)

// onePagePDF builds a valid one-page PDF showing text in Helvetica, with
// a correct cross-reference table.
func onePagePDF(text string) []byte {
	stream := fmt.Sprintf("BT /F1 12 Tf 72 712 Td (%s) Tj ET", text)
	return buildPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	)
}

// buildPDF writes objs as objects 1, 2, … (object 1 the catalog) with a
// correct cross-reference table and trailer.
func buildPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func TestText(t *testing.T) {
	cases := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"text", "a.txt", []byte("plain words"), "plain words"},
		{"pdf", "a.pdf", onePagePDF("The gate code is 4711."), "The gate code is 4711."},
		{"docx", "a.docx", docx(t, "First paragraph.", "Second one."), "First paragraph.\nSecond one."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mt, err := attach.Sniff(tc.file, tc.data)
			require.NoError(t, err)
			got, err := attach.Extract(context.Background(), mt, tc.data, attach.Limits{})
			require.NoError(t, err)
			require.False(t, got.Truncated)
			require.Contains(t, strings.Join(strings.Fields(got.Text), " "), strings.Join(strings.Fields(tc.want), " "))
		})
	}
}

func TestTextOfBrokenPDF(t *testing.T) {
	_, err := attach.Extract(context.Background(), attach.TypePDF, []byte("%PDF-1.4\ngarbage"), attach.Limits{})
	require.Error(t, err)
}
