package attachment_test

import (
	"archive/zip"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attachment"
	attach "github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/attachment/clamd"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

func TestUploadTypes(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		cases := []struct {
			name, file string
			data       []byte
			mediaType  string
		}{
			{"text", "notes.txt", []byte("The gate code is 4711."), attach.TypeText},
			{"markdown", "notes.md", []byte("# Gate\n\nThe code is 4711."), attach.TypeMarkdown},
			{"pdf", "notes.pdf", onePagePDF("The gate code is 4711."), attach.TypePDF},
			{"docx", "notes.docx", docx(t, "The gate code is 4711.", "Second paragraph."), attach.TypeDOCX},
			{"text named like a pdf", "fake.pdf", []byte("plain words"), attach.TypeText},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				a := w.upload(t, alice, w.a.ID, tc.file, tc.data)
				require.Equal(t, attachment.StatusREADY, a.Status)
				require.Equal(t, tc.mediaType, a.MediaType)
				require.Equal(t, int64(len(tc.data)), a.Size)
				require.Len(t, a.Sha256, 64)
				got, err := w.svc.Content(as(alice), a.ID)
				require.NoError(t, err)
				require.Equal(t, tc.data, got)
			})
		}
	})
}

func TestUploadRefusals(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
		cases := []struct {
			name   string
			ctx    context.Context
			conv   uuid.UUID
			file   string
			data   []byte
			code   domain.Code
			detail map[string]any
		}{
			{"png", as(alice), w.a.ID, "x.png", png, domain.CodeBadUserInput,
				map[string]any{"field": "file", "reason": "UNSUPPORTED_MEDIA_TYPE", "mediaType": "image/png"}},
			{"binary with NUL", as(alice), w.a.ID, "x.txt", []byte("a\x00b"), domain.CodeBadUserInput,
				map[string]any{"reason": "UNSUPPORTED_MEDIA_TYPE"}},
			{"zip without word/document.xml", as(alice), w.a.ID, "x.docx", zipOf(t, "a.txt"), domain.CodeBadUserInput,
				map[string]any{"reason": "UNSUPPORTED_MEDIA_TYPE"}},
			{"too large", as(alice), w.a.ID, "big.txt", []byte(strings.Repeat("a", 1001)), domain.CodeBadUserInput,
				map[string]any{"field": "file", "limit": attach.LimitFileBytes, "max": int64(1000)}},
			{"empty", as(alice), w.a.ID, "e.txt", nil, domain.CodeBadUserInput, map[string]any{"field": "file"}},
			{"bad name", as(alice), w.a.ID, "\x01", []byte("x"), domain.CodeBadUserInput, map[string]any{"field": "name"}},
			{"someone else's conversation", as(alice), w.bobsID, "x.txt", []byte("x"), domain.CodeNotFound, nil},
			{"admin into a member's conversation", as(carol), w.a.ID, "x.txt", []byte("x"), domain.CodeNotFound, nil},
			{"other tenant", as(eve), w.a.ID, "x.txt", []byte("x"), domain.CodeNotFound, nil},
			{"unknown conversation", as(alice), uuid.New(), "x.txt", []byte("x"), domain.CodeNotFound, nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := w.svc.Upload(tc.ctx, tc.conv, tc.file, tc.data)
				require.Equal(t, tc.code, code(err), "%v", err)
				var de *domain.Error
				require.ErrorAs(t, err, &de)
				for k, v := range tc.detail {
					require.Equal(t, v, de.Details[k], k)
				}
				require.Empty(t, w.keys(t), "nothing is kept")
				require.Zero(t, w.rows(t), "nothing is kept")
			})
		}
	}, func(s *domain.TenantSettings) { s.AttachmentMaxFileBytes = 1000 })
}

func zipOf(t *testing.T, name string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	f, err := zw.Create(name)
	require.NoError(t, err)
	_, err = f.Write([]byte("not a document"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestUploadCountAndTotalLimits(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		_, err := w.svc.Upload(as(alice), w.a.ID, "1.txt", []byte("one"))
		require.NoError(t, err)
		_, err = w.svc.Upload(as(alice), w.a.ID, "2.txt", []byte("two"))
		require.NoError(t, err)
		_, err = w.svc.Upload(as(alice), w.a.ID, "3.txt", []byte("three"))
		requireLimit(t, err, attach.LimitFilesPerConversation)
		// B is empty, but alice's bytes are counted across conversations:
		// 6 used + 5 > 10.
		_, err = w.svc.Upload(as(alice), w.b.ID, "4.txt", []byte("four!"))
		requireLimit(t, err, attach.LimitBytesPerUser)
		require.Len(t, w.keys(t), 2, "the refused uploads kept nothing")
		require.Equal(t, 2, w.rows(t))
		// bob's quota is his own.
		_, err = w.svc.Upload(as(bob), w.bobsID, "b.txt", []byte("bobs file"))
		require.NoError(t, err)
	}, func(s *domain.TenantSettings) {
		s.AttachmentMaxFilesPerConversation = 2
		s.AttachmentMaxBytesPerUser = 10
	})
}

func requireLimit(t *testing.T, err error, limit string) {
	t.Helper()
	require.Equal(t, domain.CodeBadUserInput, code(err), "%v", err)
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	require.Equal(t, limit, de.Details["limit"])
}

// TestCrossConversationProbe: an attachment of conversation A is readable
// through A's owner only: not listed under B (same user), not readable by
// another member, an agent without a grant, or another tenant, and every
// refusal is the same NOT_FOUND as an unknown id.
func TestCrossConversationProbe(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		a, err := w.svc.Upload(as(alice), w.a.ID, "secret.txt", []byte("the vault code is 9931"))
		require.NoError(t, err)
		inB, err := w.svc.List(as(alice), w.b.ID)
		require.NoError(t, err)
		require.Empty(t, inB)
		inA, err := w.svc.List(as(alice), w.a.ID)
		require.NoError(t, err)
		require.Len(t, inA, 1)

		_, unknown := w.svc.Get(as(alice), uuid.New())
		require.Equal(t, domain.CodeNotFound, code(unknown))
		for name, v := range map[string]*viewer.Viewer{"bob": bob, "agent without grant": sam, "other tenant": eve} {
			t.Run(name, func(t *testing.T) {
				_, err := w.svc.Get(as(v), a.ID)
				require.Equal(t, unknown.Error(), errString(err))
				_, err = w.svc.Content(as(v), a.ID)
				require.Equal(t, unknown.Error(), errString(err))
				l, err := w.svc.List(as(v), w.a.ID)
				require.NoError(t, err)
				require.Empty(t, l)
			})
		}
		// The admin of the tenant may read it (as for messages).
		_, err = w.svc.Get(as(carol), a.ID)
		require.NoError(t, err)
	})
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestScanner(t *testing.T) {
	f, err := clamd.NewFake()
	require.NoError(t, err)
	defer f.Close()
	forEach(t, clamd.New(f.Addr()), func(t *testing.T, w *world) {
		clean := w.upload(t, alice, w.a.ID, "ok.txt", []byte("harmless"))
		require.Equal(t, attachment.StatusREADY, clean.Status)

		bad := w.upload(t, alice, w.a.ID, "eicar.txt", []byte(clamd.EICAR))
		require.Equal(t, attachment.StatusFAILED, bad.Status)
		require.Equal(t, attach.FailureInfected, *bad.FailureCode)
		_, err := w.svc.Content(as(alice), bad.ID)
		require.Equal(t, domain.CodeNotFound, code(err), "an infected file's bytes are gone")
		require.Len(t, w.keys(t), 1)
	})
}

func TestScannerDownFailsClosed(t *testing.T) {
	f, err := clamd.NewFake()
	require.NoError(t, err)
	addr := f.Addr()
	require.NoError(t, f.Close())
	forEach(t, clamd.New(addr), func(t *testing.T, w *world) {
		a := w.upload(t, alice, w.a.ID, "ok.txt", []byte("harmless"))
		require.Equal(t, attachment.StatusFAILED, a.Status)
		require.Equal(t, attach.FailureScannerUnavailable, *a.FailureCode)
		require.Empty(t, w.keys(t))
	})
}
