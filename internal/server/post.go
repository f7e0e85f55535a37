package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// postTransport serves GraphQL over POST exactly as gqlgen's transport.POST
// does (content negotiation, status codes, error shapes), but writes the
// response with writeResponse. gqlgen's POST marshals the whole response
// with encoding/json, which re-validates and copies the data object it has
// just produced: about 6 % of the CPU of a 50-message page
// (docs/BENCHMARKS.md, "A page of 50 messages").
type postTransport struct {
	transport.POST
}

var _ graphql.Transport = postTransport{}

// Content types of a POST response (graphql-over-http).
const (
	contentTypeJSON            = "application/json"
	contentTypeGraphQLResponse = "application/graphql-response+json"
)

var rawParamsPool = sync.Pool{New: func() any { return new(graphql.RawParams) }}

// Do runs one operation from a POST body and writes its response.
func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	contentType := responseContentType(r)
	w.Header().Set("Content-Type", contentType)

	params := rawParamsPool.Get().(*graphql.RawParams)
	defer func() {
		*params = graphql.RawParams{}
		rawParamsPool.Put(params)
	}()
	start := graphql.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeResponse(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("could not read request body: %+v", err)}))
		return
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// One pass reads the operation and the persisted document id keys.
	req := struct {
		*graphql.RawParams
		documentIDBody
	}{RawParams: params}
	if err := dec.Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeResponse(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf(
			"json request body could not be decoded: %+v body:%s", err, string(body))}))
		return
	}
	ctx = withBodyDocumentID(ctx, req.documentIDBody)
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	rc, opErr := exec.CreateOperationContext(ctx, params)
	if opErr != nil {
		w.WriteHeader(operationErrorStatus(contentType, params.Query, opErr))
		writeRequestError(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), opErr))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	writeResponse(w, responses(ctx))
}

// responseContentType negotiates the response's content type from the
// Accept header as gqlgen's POST transport does by default: JSON unless the
// client asks only for application/graphql-response+json.
func responseContentType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return contentTypeJSON
	}
	for part := range strings.SplitSeq(accept, ",") {
		mediaType, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case "*/*", "application/*", contentTypeJSON:
			return contentTypeJSON
		case contentTypeGraphQLResponse:
			return contentTypeGraphQLResponse
		}
	}
	return contentTypeGraphQLResponse
}

// operationErrorStatus is the HTTP status of a request whose operation
// could not be built, as the GraphQL-over-HTTP spec has it: 400 for a
// request without a document (no query, and no persisted document that
// supplied one); otherwise 200 for application/json (a client that
// predates the spec reads the errors from any 200 body), and 400 for a
// parse or validation error (a protocol error) with
// application/graphql-response+json.
func operationErrorStatus(contentType, query string, errs gqlerror.List) int {
	protocol := errcode.GetErrorKind(errs) == errcode.KindProtocol
	if protocol && (query == "" || contentType == contentTypeGraphQLResponse) {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// writeRequestError writes the response to a request error (an operation
// that could not be built: the document did not parse or validate, a
// variable could not be coerced, a persisted document is unknown): its
// errors and extensions, without a data entry, since execution never
// began (GraphQL spec, "Response"; GraphQL-over-HTTP, "Request errors").
func writeRequestError(w io.Writer, resp *graphql.Response) {
	if resp == nil {
		resp = &graphql.Response{}
	}
	out := struct {
		Errors     gqlerror.List  `json:"errors"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Errors, resp.Extensions}
	b, err := json.Marshal(out)
	if err != nil {
		panic(fmt.Errorf("unable to marshal a GraphQL request error: %w", err))
	}
	_, _ = w.Write(b)
}

var responseBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledResponse is the largest buffer returned to responseBufPool, so
// that one huge response does not stay pinned in the pool.
const maxPooledResponse = 1 << 20

// writeResponse writes resp as JSON with the members in the order, and with
// the omissions, of json.Marshal(resp). The data object, which gqlgen's
// executor has already rendered as compact JSON, is copied as it is instead
// of being validated and compacted again; only the errors and extensions go
// through encoding/json. (encoding/json would also escape <, > and & inside
// the data as \u003c…; the JSON value is the same.)
func writeResponse(w io.Writer, resp *graphql.Response) {
	if resp == nil {
		resp = &graphql.Response{}
	}
	if resp.Label != "" || resp.Path != nil || resp.HasNext != nil {
		// Incremental delivery (@defer) parts, which POST never produces:
		// the general encoder.
		b, err := json.Marshal(resp)
		if err != nil {
			panic(fmt.Errorf("unable to marshal %s: %w", string(resp.Data), err))
		}
		_, _ = w.Write(b)
		return
	}
	buf := responseBufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledResponse {
			buf.Reset()
			responseBufPool.Put(buf)
		}
	}()
	buf.WriteByte('{')
	if len(resp.Errors) > 0 {
		buf.WriteString(`"errors":`)
		mustEncode(buf, resp.Errors)
		buf.WriteByte(',')
	}
	buf.WriteString(`"data":`)
	if len(resp.Data) == 0 {
		buf.WriteString("null")
	} else {
		buf.Write(resp.Data)
	}
	if len(resp.Extensions) > 0 {
		buf.WriteString(`,"extensions":`)
		mustEncode(buf, resp.Extensions)
	}
	buf.WriteByte('}')
	_, _ = w.Write(buf.Bytes())
}

// mustEncode appends v's JSON to buf, without the encoder's newline.
func mustEncode(buf *bytes.Buffer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Errorf("unable to marshal a GraphQL response member: %w", err))
	}
	buf.Write(b)
}
