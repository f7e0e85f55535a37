package attachment_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	attach "github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/domain"
)

// prevCyclePDF is a PDF whose cross-reference table names itself as its
// /Prev: the PDF library follows the chain for ever, in a loop no
// context interrupts.
func prevCyclePDF() []byte {
	good := buildPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>")
	i := bytes.LastIndex(good, []byte("startxref"))
	var xref int
	_, err := fmt.Sscanf(string(good[i:]), "startxref\n%d", &xref)
	if err != nil {
		panic(err)
	}
	return bytes.Replace(good, []byte("/Root 1 0 R"), fmt.Appendf(nil, "/Root 1 0 R /Prev %d", xref), 1)
}

// hugeXrefPDF is a PDF whose cross-reference stream declares 4,000,000,000
// objects: the PDF library allocates a table of that many entries
// (about 128 GB) before it reads anything, which ends the process that
// tries.
func hugeXrefPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	at := b.Len()
	b.WriteString("1 0 obj\n<< /Type /XRef /Size 4000000000 /W [1 2 1] /Root 1 0 R /Length 0 >>\nstream\n\nendstream\nendobj\n")
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", at)
	return b.Bytes()
}

// TestSandbox: in the sandbox child a PDF's text is what Extract gives in
// process, with the same typed refusals; a file that drives the library
// into an endless loop is killed at the deadline (the context's error),
// and one that makes it allocate without bound ends the child, not the
// server: an error, and this process carries on.
func TestSandbox(t *testing.T) {
	sb := testSandbox()
	ctx := context.Background()
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		ex, err := sb.Extract(ctx, attach.TypePDF, onePagePDF("The gate code is 4711."), attach.Limits{})
		require.NoError(t, err)
		require.Equal(t, "The gate code is 4711.\n\n", ex.Text)
		require.Equal(t, 1, ex.Pages)
	})
	t.Run("too many pages", func(t *testing.T) {
		t.Parallel()
		_, err := sb.Extract(ctx, attach.TypePDF, declaredPagesPDF(4, 12), attach.Limits{MaxPDFPages: 100})
		var pages *attach.PageLimitError
		require.ErrorAs(t, err, &pages)
		require.Equal(t, 100, pages.Max)
	})
	t.Run("endless loop", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err := sb.Extract(ctx, attach.TypePDF, prevCyclePDF(), attach.Limits{})
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("unbounded allocation", func(t *testing.T) {
		t.Parallel()
		_, err := sb.Extract(ctx, attach.TypePDF, hugeXrefPDF(), attach.Limits{})
		require.Error(t, err)
		require.False(t, errors.Is(err, context.DeadlineExceeded))
		require.Contains(t, err.Error(), "fatal error", "the child ended (out of memory, or the race detector out of address space)")
	})
}

// TestHostilePDFsFailWithTypedReasons: uploaded through the service with
// the sandbox, a PDF of about a kilobyte declaring 30,000,000 pages over a
// page tree of 10^7 is FAILED with TOO_MANY_PAGES, one that would end the
// process that parses it is FAILED with PROCESSING_FAILED (and this
// process carries on), and an ordinary one is READY; the FAILED ones'
// bytes are deleted and they no longer count against the owner's limits.
func TestHostilePDFsFailWithTypedReasons(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		w.svc, w.settled = newService(t, w.db, w.blobs, attach.Options{Sandbox: testSandbox()})
		cases := []struct {
			name string
			data []byte
			code string
		}{
			{"pages.pdf", declaredPagesPDF(10, 7), attach.FailureTooManyPages},
			{"huge.pdf", hugeXrefPDF(), attach.FailureProcessing},
			{"fine.pdf", onePagePDF("The gate code is 4711."), ""},
		}
		for _, tc := range cases {
			a := w.upload(t, alice, w.a.ID, tc.name, tc.data)
			if tc.code == "" {
				require.Equal(t, "READY", a.Status.String(), tc.name)
				continue
			}
			require.Equal(t, "FAILED", a.Status.String(), tc.name)
			require.Equal(t, tc.code, *a.FailureCode, tc.name)
			require.NotContains(t, w.keys(t), a.BlobKey, tc.name)
		}
		// Only the READY file counts: 2 more fit in a limit of 3 files.
		for i := range 2 {
			_, err := w.svc.Upload(as(alice), w.a.ID, fmt.Sprintf("more%d.txt", i), []byte("more"))
			require.NoError(t, err)
		}
	}, func(s *domain.TenantSettings) { s.AttachmentMaxFilesPerConversation = 3 })
}
