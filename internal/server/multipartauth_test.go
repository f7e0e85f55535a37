package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// bigUpload returns a GraphQL multipart request body (the multipart
// request spec: operations, map, one file part of size bytes) and its
// content type.
func bigUpload(t *testing.T, size int) (io.Reader, string) {
	t.Helper()
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	ops, _ := json.Marshal(map[string]any{"query": uploadMutation, "variables": map[string]any{"c": "00000000-0000-0000-0000-000000000000", "f": nil}})
	require.NoError(t, mw.WriteField("operations", string(ops)))
	require.NoError(t, mw.WriteField("map", `{"0":["variables.f"]}`))
	_, err := mw.CreateFormFile("0", "big.txt")
	require.NoError(t, err)
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	return io.MultiReader(&head, io.LimitReader(filler{}, int64(size)), bytes.NewBufferString(tail)), mw.FormDataContentType()
}

// filler reads as an endless run of 'a'.
type filler struct{}

func (filler) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestAnonymousMultipartIsRefusedUnread: a GraphQL multipart request
// (uploadAttachment) without a token is refused with 401 and
// UNAUTHENTICATED before its body is read; the same request with a token
// is read (the counter sees the whole file), so the count is what the
// server read.
func TestAnonymousMultipartIsRefusedUnread(t *testing.T) {
	t.Parallel()
	h := start(t, servertest.Options{})
	const size = 8 << 20
	for _, tc := range []struct {
		name   string
		token  string
		status int
		// read bounds what the server may read of the body.
		min, max int64
	}{
		{name: "anonymous", status: http.StatusUnauthorized, min: 0, max: 0},
		{name: "signed in", token: h.Token(t, "demo", "alice", []string{"member"}), status: http.StatusOK, min: size, max: 2 * size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := bigUpload(t, size)
			cr := &countingReader{r: body}
			req := httptest.NewRequest(http.MethodPost, "/graphql", cr)
			req.Header.Set("Content-Type", ct)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			rec := httptest.NewRecorder()
			h.Server.Handler().ServeHTTP(rec, req)
			require.Equal(t, tc.status, rec.Code, "%s", rec.Body.String())
			n := cr.n.Load()
			assert.GreaterOrEqual(t, n, tc.min, "bytes read")
			assert.LessOrEqual(t, n, tc.max, "bytes read")
			if tc.token != "" {
				return
			}
			var out struct {
				Errors []struct {
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), "%s", rec.Body.String())
			require.Len(t, out.Errors, 1)
			assert.Equal(t, "UNAUTHENTICATED", out.Errors[0].Extensions["code"])
			assert.Equal(t, "Bearer", rec.Header().Get("WWW-Authenticate"))
		})
	}
}
