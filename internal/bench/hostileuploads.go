package bench

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/viewer"
)

// hostileFile is one upload designed to be expensive.
type hostileFile struct {
	kind, name string
	data       []byte
}

// hostileFiles are the uploads of the hostile burst: a text of one 8 MiB
// paragraph, a PDF whose 64 MiB content stream of text compresses to
// about 250 KiB, a PDF of about a kilobyte declaring 30,000,000 pages
// over a page tree of 10^7, a PDF of 2,000 real pages, a PDF that drives
// the PDF library into an endless loop (only the sandbox's deadline ends
// it), and a DOCX whose document.xml inflates to 64 MiB.
func hostileFiles() ([]hostileFile, error) {
	para := bytes.Repeat([]byte("lorem ipsum dolor sit amet "), (8<<20)/27)
	line := "BT /F1 12 Tf (" + strings.Repeat("All work and no play makes Jack a dull boy. ", 20) + ") Tj ET\n"
	inflating, err := deflate([]byte(strings.Repeat(line, (64<<20)/len(line))))
	if err != nil {
		return nil, err
	}
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
	stream := func(content []byte, filter string) string {
		return fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(content), filter, content)
	}
	// 7 levels of 10 kids each over one page: 10^7 pages when walked.
	tree := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	for l := range 7 {
		tree = append(tree, fmt.Sprintf("<< /Type /Pages /Count 30000000 /Kids [%s] >>",
			strings.TrimSpace(strings.Repeat(fmt.Sprintf("%d 0 R ", l+3), 10))))
	}
	tree = append(tree, "<< /Type /Page /Contents 10 0 R /Resources << /Font << /F1 11 0 R >> >> >>",
		stream([]byte("BT /F1 12 Tf (one real page) Tj ET"), ""), font)
	// 2,000 real pages, each its own object and content stream.
	const pages = 2000
	many := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", font}
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
		many = append(many,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", 5+2*i),
			stream(fmt.Appendf(nil, "BT /F1 12 Tf (Page %d of a long report, with a sentence of text on it.) Tj ET", i+1), ""))
	}
	many[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	docx, err := inflatingDocx(64 << 20)
	if err != nil {
		return nil, err
	}
	return []hostileFile{
		{"text, one 8 MiB paragraph", "paragraph.txt", para},
		{"PDF, 64 MiB of text compressed", "inflating.pdf", pdfOf(
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
			stream(inflating, " /Filter /FlateDecode"), font)},
		{"PDF declaring 30,000,000 pages", "pages.pdf", pdfOf(tree...)},
		{"PDF of 2,000 real pages", "report.pdf", pdfOf(many...)},
		{"PDF that loops the PDF library", "looping.pdf", loopingPDF()},
		{"DOCX, 64 MiB of XML compressed", "inflating.docx", docx},
	}, nil
}

// deflate compresses data with zlib at the best ratio.
func deflate(data []byte) ([]byte, error) {
	var b bytes.Buffer
	zw, err := zlib.NewWriterLevel(&b, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	err = zw.Close()
	return b.Bytes(), err
}

// pdfOf writes objs as objects 1, 2, … (1 the catalog) with a correct
// cross-reference table.
func pdfOf(objs ...string) []byte {
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

// loopingPDF is a PDF whose cross-reference table names itself as its
// /Prev, which the PDF library follows for ever.
func loopingPDF() []byte {
	good := pdfOf("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>")
	i := bytes.LastIndex(good, []byte("startxref\n"))
	xref := strings.TrimSpace(strings.SplitN(string(good[i+len("startxref\n"):]), "\n", 2)[0])
	return bytes.Replace(good, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /Prev "+xref), 1)
}

// inflatingDocx is a DOCX whose word/document.xml holds n bytes of
// paragraphs.
func inflatingDocx(n int) ([]byte, error) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	f, err := zw.Create("word/document.xml")
	if err != nil {
		return nil, err
	}
	_, _ = f.Write([]byte(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`))
	p := []byte(`<w:p><w:r><w:t>` + strings.Repeat("dull boy ", 100) + `</w:t></w:r></w:p>`)
	for range n / len(p) {
		if _, err := f.Write(p); err != nil {
			return nil, err
		}
	}
	_, _ = f.Write([]byte(`</w:body></w:document>`))
	err = zw.Close()
	return b.Bytes(), err
}

// hostileTally counts the upload answers of the burst by outcome.
type hostileTally struct {
	mu      sync.Mutex
	answers map[string]int // "201", "429 RATE_LIMITED", "503 UNAVAILABLE attachmentQueue", …
}

func (h *hostileTally) add(key string) {
	h.mu.Lock()
	h.answers[key]++
	h.mu.Unlock()
}

// benchHostileUploads measures what a burst of uploads designed to be
// expensive does to asks (issue 31: an ask's first token during the
// burst stays within 2× of its quiet value): one stream asks
// --hostile-rounds questions in turn, quiet; then --hostile-uploaders
// uploaders send hostileFiles through POST /files as fast as the server
// takes them (a new user whenever one is refused by the upload rate or
// a per-user limit, as an attacker with many accounts would), and after
// --hostile-warmup the same stream asks again. It prints both, the
// uploads' answers, what the accepted files became (READY, or FAILED with
// which code, and the longest upload → final state among them), and the
// server's peak resident set and processor time (its own, and its
// sandbox children's) over the burst.
func benchHostileUploads(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	files, err := hostileFiles()
	if err != nil {
		return err
	}
	env.fake.SetChunkDelay(15 * time.Millisecond)
	defer env.fake.SetChunkDelay(time.Millisecond)
	model, err := fakeTTFT(ctx, env.fake.URL, 30)
	if err != nil {
		return err
	}
	asker := env.client("hostile-asker")
	ws, conv, err := openConv(ctx, asker, uuid.Nil)
	if err != nil {
		return err
	}
	defer ws.Close()
	ask := func(phase string) ([]time.Duration, int, error) {
		var samples []time.Duration
		failed := 0
		for r := range o.hostileRounds {
			d, ok, err := askAndWaitFirstDelta(ctx, asker, ws, conv, fmt.Sprintf("hostile-%s-%d", phase, r))
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				failed++
				continue
			}
			samples = append(samples, d)
		}
		return samples, failed, nil
	}
	quiet, quietFailed, err := ask("quiet")
	if err != nil {
		return err
	}

	hwm0, cpu0, kids0 := procPeakRSS(env.pid()), procCPU(env.pid()), procChildrenCPU(env.pid())
	tally := &hostileTally{answers: map[string]int{}}
	burst, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	start := time.Now()
	for u := range o.hostileUploaders {
		wg.Go(func() { hostileUploader(burst, env, files, u, tally) })
	}
	select {
	case <-time.After(o.hostileWarmup):
	case <-ctx.Done():
	}
	loud, loudFailed, err := ask("burst")
	stop()
	wg.Wait()
	elapsed := time.Since(start)
	if err != nil {
		return err
	}
	hwm1, cpu1, kids1 := procPeakRSS(env.pid()), procCPU(env.pid()), procChildrenCPU(env.pid())

	fmt.Fprintf(w, "### First token during hostile uploads\n\n")
	fmt.Fprintf(w, "One stream asks %d questions in turn, quiet, then again while %d uploaders send files designed to be expensive through POST /files for %s (starting %s before the first ask), each uploader moving to a new user when the upload rate or a per-user limit refuses it. Ask sent → first DELTA over graphql-transport-ws (the fake model's own TTFT, %s, included). The longest time to a final state includes the wait in the processing queue.\n\n",
		o.hostileRounds, o.hostileUploaders, elapsed.Round(time.Second), o.hostileWarmup, ms(model))
	fmt.Fprintln(w, "| phase | samples | first token p50 | p99 | failed |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	fmt.Fprintf(w, "| quiet | %d | %s | %s | %d |\n", len(quiet), ms(pct(quiet, 50)), ms(pct(quiet, 99)), quietFailed)
	fmt.Fprintf(w, "| during the uploads | %d | %s | %s | %d |\n", len(loud), ms(pct(loud, 50)), ms(pct(loud, 99)), loudFailed)
	fmt.Fprintln(w)
	if len(quiet) > 0 && len(loud) > 0 && pct(quiet, 50) > 0 {
		env.results.hostileOK = true
		env.results.hostileQuiet, env.results.hostileLoud = pct(quiet, 50), pct(loud, 50)
	}

	fmt.Fprintln(w, "| file | bytes |")
	fmt.Fprintln(w, "|---|---:|")
	for _, f := range files {
		fmt.Fprintf(w, "| %s | %d |\n", f.kind, len(f.data))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| upload answer | count |")
	fmt.Fprintln(w, "|---|---:|")
	var keys []string
	for k := range tally.answers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "| %s | %d |\n", k, tally.answers[k])
	}
	fmt.Fprintln(w)
	if err := hostileOutcomes(ctx, env, w); err != nil {
		return err
	}
	if hwm0 > 0 && hwm1 > 0 {
		fmt.Fprintf(w, "Server process over the burst: peak resident set %.0f MiB (%.0f MiB before), processor time %s, its sandbox children's %s.\n\n",
			float64(hwm1)/(1<<20), float64(hwm0)/(1<<20), (cpu1 - cpu0).Round(10*time.Millisecond), (kids1 - kids0).Round(10*time.Millisecond))
	}
	return nil
}

// hostileUploader uploads files in turn until ctx ends, each into a
// conversation of its current user (a new conversation every 20 files, a
// new user whenever one is refused by the upload rate or a per-user
// limit), and tallies the answers.
func hostileUploader(ctx context.Context, env *benchEnv, files []hostileFile, u int, tally *hostileTally) {
	gen, n := 0, 0
	user := func() string { return fmt.Sprintf("hostile-%d-%d", u, gen) }
	var conv string
	for i := 0; ctx.Err() == nil; i++ {
		if conv == "" || n == 20 {
			c, err := createConv(ctx, env.client(user()))
			if err != nil {
				return
			}
			conv, n = c, 0
		}
		f := files[(i+u)%len(files)]
		status, code, limit, retry := postHostile(ctx, env, env.token(user()), conv, f)
		if ctx.Err() != nil {
			return
		}
		key := strconv.Itoa(status)
		if code != "" {
			key += " " + code
		}
		if limit != "" {
			key += " " + limit
		}
		tally.add(key)
		n++
		switch {
		case status == http.StatusTooManyRequests || limit == "maxBytesPerUser" || limit == "maxFilesPerConversation":
			gen, conv = gen+1, "" // another account
		case status == http.StatusServiceUnavailable:
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(max(retry, 1)) * 100 * time.Millisecond):
			}
		}
	}
}

// postHostile sends one POST /files and returns the status, the error's
// code, limit and retryAfterSeconds.
func postHostile(ctx context.Context, env *benchEnv, tok, conv string, f hostileFile) (status int, code, limit string, retry int) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("conversationId", conv)
	fw, _ := mw.CreateFormFile("file", f.name)
	_, _ = fw.Write(f.data)
	_ = mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.base+"/files", &body)
	if err != nil {
		return 0, "request", "", 0
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "transport", "", 0
	}
	defer resp.Body.Close()
	var out struct {
		Errors []struct {
			Extensions struct {
				Code              string
				Limit             string
				RetryAfterSeconds int
			}
		}
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if len(out.Errors) > 0 {
		e := out.Errors[0].Extensions
		return resp.StatusCode, e.Code, e.Limit, e.RetryAfterSeconds
	}
	return resp.StatusCode, "", "", 0
}

// hostileOutcomes prints what became of the burst's accepted files, by
// type and final state, with the longest time from the upload to that
// state; files still in processing are counted apart.
func hostileOutcomes(ctx context.Context, env *benchEnv, w io.Writer) error {
	sys := viewer.SystemJobContext(ctx, viewer.JobAttachments)
	rows, err := env.db.Client.Attachment.Query().Where(attachment.OwnerIDHasPrefix("hostile-")).All(sys)
	if err != nil {
		return err
	}
	type outcome struct {
		n       int
		longest time.Duration
	}
	by := map[string]*outcome{}
	for _, a := range rows {
		state := a.Status.String()
		if a.FailureCode != nil {
			state += " " + *a.FailureCode
		}
		key := a.Name + " → " + state
		if by[key] == nil {
			by[key] = &outcome{}
		}
		by[key].n++
		if a.Status == attachment.StatusREADY || a.Status == attachment.StatusFAILED {
			by[key].longest = max(by[key].longest, a.UpdatedAt.Sub(a.CreatedAt))
		}
	}
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(w, "| accepted file → state when the burst ended | files | longest upload → that state |")
	fmt.Fprintln(w, "|---|---:|---:|")
	for _, k := range keys {
		longest := "still processing"
		if by[k].longest > 0 {
			longest = by[k].longest.Round(10 * time.Millisecond).String()
		}
		fmt.Fprintf(w, "| %s | %d | %s |\n", k, by[k].n, longest)
	}
	fmt.Fprintln(w)
	return nil
}

// procPeakRSS returns process pid's peak resident set (VmHWM) in bytes
// from /proc, or 0.
func procPeakRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
