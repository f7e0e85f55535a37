package attachment_test

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	attach "github.com/ragchat/ragchat/internal/attachment"
)

// declaredPagesPDF is a PDF whose page tree declares 30,000,000 pages
// (/Count) and whose Kids repeat one node fan times per level, levels
// deep, over one page object: the real tree, walked, has fan^levels
// pages in a few hundred bytes. With levels 0 it has one page.
func declaredPagesPDF(fan, levels int) []byte {
	page := fmt.Sprintf("<< /Type /Page /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", levels+3, levels+4)
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	for l := 0; l < levels; l++ {
		objs = append(objs, fmt.Sprintf("<< /Type /Pages /Count 30000000 /Kids [%s] >>",
			strings.TrimSpace(strings.Repeat(fmt.Sprintf("%d 0 R ", l+3), fan))))
	}
	if levels == 0 {
		objs = append(objs, "<< /Type /Pages /Count 30000000 /Kids [3 0 R] >>")
		page = "<< /Type /Page /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
	}
	stream := "BT /F1 12 Tf (The one real page.) Tj ET"
	objs = append(objs, page,
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	return buildPDF(objs...)
}

// deflated returns data compressed with zlib at the best ratio.
func deflated(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	zw, err := zlib.NewWriterLevel(&b, zlib.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// inflatingPDF is a one-page PDF whose FlateDecode content stream is
// content repeated n times.
func inflatingPDF(t *testing.T, content string, n int) []byte {
	z := deflated(t, []byte(strings.Repeat(content, n)))
	return buildPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(z), z),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	)
}

// allocated returns the bytes fn allocated (runtime.MemStats.TotalAlloc:
// every allocation counts, whatever the collector frees meanwhile).
// Tests that use it do not run in parallel.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDeclaredPageCountIsNotTrusted: the page tree is walked, never its
// /Count. A PDF of a few hundred bytes declaring 30,000,000 pages over a
// tree whose nodes repeat each other (10^7 pages when walked) fails at
// once with TOO_MANY_PAGES, having read no page; the same declaration
// over one real page reads that one page. Both end after a bounded
// number of allocations (the library's reader walked the declared
// count, 30,000,000 page lookups, for about 21 minutes).
func TestDeclaredPageCountIsNotTrusted(t *testing.T) {
	lim := attach.Limits{MaxPDFPages: 500}
	t.Run("a tree of 10^7 pages", func(t *testing.T) {
		data := declaredPagesPDF(10, 7)
		require.Less(t, len(data), 2048, "the file is small: %d bytes", len(data))
		var (
			ex  attach.Extraction
			err error
		)
		alloc := allocated(func() { ex, err = attach.Extract(context.Background(), attach.TypePDF, data, lim) })
		var pages *attach.PageLimitError
		require.ErrorAs(t, err, &pages)
		require.Equal(t, 500, pages.Max)
		require.Zero(t, ex.Pages, "no page is read before the tree is counted")
		require.Less(t, alloc, uint64(16<<20), "allocated %d bytes", alloc)
	})
	t.Run("one real page", func(t *testing.T) {
		data := declaredPagesPDF(1, 0)
		var (
			ex  attach.Extraction
			err error
		)
		alloc := allocated(func() { ex, err = attach.Extract(context.Background(), attach.TypePDF, data, lim) })
		require.NoError(t, err)
		require.Equal(t, 1, ex.Pages)
		require.Contains(t, ex.Text, "The one real page.")
		require.Less(t, alloc, uint64(4<<20), "allocated %d bytes", alloc)
	})
}

// TestExpandingFilesAreBounded: a small compressed file that expands
// hugely yields at most the text bound, read into a writer that stops
// there, and allocates a bounded multiple of that bound: a PDF whose
// 32 MiB content stream of text compresses to a few dozen KiB, one whose
// content stream is only operands past the stream cap (which a reader
// that stacks operands until their operator would hold in memory), and
// a DOCX whose document.xml inflates the same way.
func TestExpandingFilesAreBounded(t *testing.T) {
	const textBound = 1 << 20
	lim := attach.Limits{MaxTextBytes: textBound, MaxStreamBytes: 8 << 20, MaxInflatedBytes: 32 << 20}
	line := "BT /F1 12 Tf (" + strings.Repeat("All work and no play makes Jack a dull boy. ", 20) + ") Tj ET\n"
	bigDocx := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		f, err := zw.Create("word/document.xml")
		require.NoError(t, err)
		_, err = f.Write([]byte(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`))
		require.NoError(t, err)
		p := []byte(`<w:p><w:r><w:t>` + strings.Repeat("dull boy ", 100) + `</w:t></w:r></w:p>`)
		for range (32 << 20) / len(p) {
			_, err = f.Write(p)
			require.NoError(t, err)
		}
		require.NoError(t, zw.Close())
		return buf.Bytes()
	}
	cases := []struct {
		name      string
		mediaType string
		data      []byte
		noText    bool
	}{
		{"pdf of 32 MiB of text", attach.TypePDF, inflatingPDF(t, line, (32<<20)/len(line)), false},
		{"pdf of 16 MiB of operands", attach.TypePDF, inflatingPDF(t, "1 ", 8<<20), true},
		{"docx of 32 MiB of xml", attach.TypeDOCX, bigDocx(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Less(t, len(tc.data), 1<<20, "the file is small: %d bytes", len(tc.data))
			var (
				ex  attach.Extraction
				err error
			)
			alloc := allocated(func() { ex, err = attach.Extract(context.Background(), tc.mediaType, tc.data, lim) })
			if tc.noText {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				require.NotEmpty(t, ex.Text)
			}
			require.True(t, ex.Truncated, "a bound stopped it")
			require.LessOrEqual(t, len(ex.Text), textBound)
			require.LessOrEqual(t, ex.Inflated, lim.MaxInflatedBytes)
			require.Less(t, alloc, uint64(12*textBound+4<<20), "allocated %d bytes for %d of text", alloc, len(ex.Text))
		})
	}
}

// TestStreamCap: a content stream is read up to MaxStreamBytes: the text
// after it is not read, and the file's streams stop together at
// MaxInflatedBytes.
func TestStreamCap(t *testing.T) {
	filler := strings.Repeat("0 0 m ", 1<<16) // 384 KiB of path operators
	data := inflatingPDF(t, "BT /F1 12 Tf (before) Tj ET\n"+filler+"BT /F1 12 Tf (after) Tj ET\n", 1)
	ex, err := attach.Extract(context.Background(), attach.TypePDF, data, attach.Limits{MaxStreamBytes: 64 << 10})
	require.NoError(t, err)
	require.True(t, ex.Truncated)
	require.Contains(t, ex.Text, "before")
	require.NotContains(t, ex.Text, "after")
	require.Equal(t, int64(64<<10), ex.Inflated)
}

// TestPDFTextLayout: text objects and lines are separated, a large
// negative TJ adjustment is a space, pages end with a blank line, and
// escapes, octal codes and hexadecimal strings are decoded.
func TestPDFTextLayout(t *testing.T) {
	page := func(content string) string {
		return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
	}
	data := buildPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /Resources << /Font << /F1 7 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>",
		page(`BT /F1 12 Tf 72 700 Td (First line) Tj 0 -14 Td [(Wo) 30 (rd) -400 (gap)] TJ T* (A \(paren\) and \101) Tj ET`),
		page(`BT /F1 12 Tf <48656C6C6F> Tj ET`),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	)
	ex, err := attach.Extract(context.Background(), attach.TypePDF, data, attach.Limits{})
	require.NoError(t, err)
	require.Equal(t, 2, ex.Pages)
	require.Equal(t, "First line\nWord gap\nA (paren) and A\n\nHello\n\n", ex.Text)
}
