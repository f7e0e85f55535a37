package main_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/testdb"
)

// loopingPDF is a PDF whose cross-reference table names itself as its
// /Prev: the PDF library follows that chain for ever, in a loop nothing
// inside the process can interrupt.
func loopingPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	off1 := b.Len()
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	off2 := b.Len()
	b.WriteString("2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 3\n0000000000 65535 f \n%010d 00000 n \n%010d 00000 n \n", off1, off2)
	fmt.Fprintf(&b, "trailer\n<< /Size 3 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", xref, xref)
	return b.Bytes()
}

// postFile uploads data as name into conv through POST /files of p and
// returns the attachment's id.
func postFile(t *testing.T, p *process, tok, conv, name string, data []byte) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("conversationId", conv)
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(data)
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(p.url, "/graphql")+"/files", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID, Status string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated || out.Status != "UPLOADED" {
		t.Fatalf("POST /files %s: %d %+v %v", name, resp.StatusCode, out, err)
	}
	return out.ID
}

// attachmentRow reads an attachment's status, failure code and attempts.
func attachmentRow(t *testing.T, db *sql.DB, id string) (status, code string, attempts int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var fc sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT status, failure_code, attempts FROM attachments WHERE id = $1`, id).Scan(&status, &fc, &attempts); err != nil {
		t.Fatal(err)
	}
	return status, fc.String, attempts
}

// extractChildren counts the running `ragchat extract` processes of the
// suite's binary (the PDF sandbox's children), from /proc.
func extractChildren(t *testing.T) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && bytes.HasPrefix(b, []byte(binary+"\x00extract\x00")) {
			n++
		}
	}
	return n
}

// TestKilledInstanceFilesAreTakenOver: instance A, processing one file at
// a time, holds a PDF that drives the PDF library into an endless loop
// (in its sandbox child) and has a text file queued behind it when it is
// killed with SIGKILL. Its sandbox child dies with it. Instance B, which
// left A's files alone while A renewed their leases, takes both over
// once the leases expire: the text file becomes READY on its first
// attempt; the PDF is retried once, its sandbox child killed at B's
// deadline, and is FAILED with PROCESSING_TIMEOUT after two attempts. B
// serves on, and no sandbox child is left running.
func TestKilledInstanceFilesAreTakenOver(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	dbURL := testdb.PostgresURL(t)
	provision(t, baseEnv(t, dbURL))
	// Replicas share their blob store (a bucket, or one volume).
	common := []string{"RAGCHAT_ATTACHMENT_LEASE=2s", "RAGCHAT_ATTACHMENT_WORKERS=1", "RAGCHAT_BLOB_DIR=" + t.TempDir()}
	a := launch(t, dbURL, baseEnv(t, dbURL, append(common, "RAGCHAT_ATTACHMENT_DEADLINE=10m")...))
	b := launch(t, dbURL, baseEnv(t, dbURL, append(common, "RAGCHAT_ATTACHMENT_DEADLINE=3s")...))
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })

	tok := token(t, "acme", "alice", []string{"member"})
	conv := createConversation(t, a.client(t, "acme", "alice"))
	looping := postFile(t, a, tok, conv, "looping.pdf", loopingPDF())
	queued := postFile(t, a, tok, conv, "notes.txt", []byte("The Zorblax reactor runs on purple tourmaline."))
	hang := time.Now().Add(time.Minute) // hang guard
	for {
		if st, _, _ := attachmentRow(t, db, looping); st == "CHUNKING" && extractChildren(t) > 0 {
			break
		}
		if time.Now().After(hang) {
			t.Fatalf("A never started the PDF\n%s", lastLines(a.stderr.String(), 40))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Several leases pass while A renews them: B takes nothing over.
	time.Sleep(3 * time.Second)
	if st, _, n := attachmentRow(t, db, looping); st != "CHUNKING" || n != 1 {
		t.Fatalf("while A runs, the PDF is %s after %d attempts, want CHUNKING after 1", st, n)
	}
	if st, _, _ := attachmentRow(t, db, queued); st != "UPLOADED" {
		t.Fatalf("while A runs, the queued file is %s, want UPLOADED", st)
	}

	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	hang = time.Now().Add(2 * time.Minute)
	for {
		st1, _, _ := attachmentRow(t, db, looping)
		st2, _, _ := attachmentRow(t, db, queued)
		if (st1 == "READY" || st1 == "FAILED") && (st2 == "READY" || st2 == "FAILED") {
			break
		}
		if time.Now().After(hang) {
			t.Fatalf("B never finished A's files: %s, %s\n%s", st1, st2, lastLines(b.stderr.String(), 40))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st, code, n := attachmentRow(t, db, queued); st != "READY" || n != 1 {
		t.Errorf("the queued file: %s %s after %d attempts, want READY after 1", st, code, n)
	}
	if st, code, n := attachmentRow(t, db, looping); st != "FAILED" || code != "PROCESSING_TIMEOUT" || n != 2 {
		t.Errorf("the looping PDF: %s %s after %d attempts, want FAILED PROCESSING_TIMEOUT after 2", st, code, n)
	}
	for i := 0; extractChildren(t) > 0; i++ {
		if i == 100 {
			t.Fatalf("%d sandbox children still run", extractChildren(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
	var list struct {
		Conversation struct{ Attachments []struct{ ID, Status string } }
	}
	mustDo(t, b.client(t, "acme", "alice"), `query($c: ID!) { conversation(id: $c) { attachments { id status } } }`, map[string]any{"c": conv}, &list)
	if len(list.Conversation.Attachments) != 2 {
		t.Fatalf("B lists %+v", list.Conversation.Attachments)
	}
}
