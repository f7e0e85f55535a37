package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ragchat/ragchat/internal/domain"
)

// getTransport serves GraphQL over GET (queries only) as the
// GraphQL-over-HTTP spec has it: the response's content type is negotiated
// as on POST, request errors have POST's status codes and no data entry,
// and a mutation or subscription is 405 Method Not Allowed with
// "Allow: POST" (gqlgen's transport.GET answers 422 or 406).
type getTransport struct {
	transport.GET
}

var _ graphql.Transport = getTransport{}

// Do runs one operation from a GET request's query string.
func (t getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	contentType := responseContentType(r)
	w.Header().Set("Content-Type", contentType)
	badRequest := func(msg string) {
		w.WriteHeader(http.StatusBadRequest)
		writeRequestError(w, &graphql.Response{Errors: gqlerror.List{gqlErr(domain.CodeBadUserInput, msg, nil)}})
	}
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		badRequest("the query string could not be parsed")
		return
	}
	raw := &graphql.RawParams{
		Query:         query.Get("query"),
		OperationName: query.Get("operationName"),
		Headers:       r.Header,
	}
	raw.ReadTime.Start = graphql.Now()
	for name, into := range map[string]*map[string]any{"variables": &raw.Variables, "extensions": &raw.Extensions} {
		v := query.Get(name)
		if v == "" {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(v)))
		dec.UseNumber()
		if err := dec.Decode(into); err != nil {
			badRequest(name + " could not be decoded")
			return
		}
	}
	raw.ReadTime.End = graphql.Now()

	rc, opErr := exec.CreateOperationContext(ctx, raw)
	if opErr != nil {
		if rc != nil && rc.Operation != nil && rc.Operation.Operation != ast.Query {
			w.Header().Set("Allow", http.MethodPost)
			w.WriteHeader(http.StatusMethodNotAllowed)
		} else {
			w.WriteHeader(operationErrorStatus(contentType, raw.Query, opErr))
		}
		writeRequestError(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), opErr))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	writeResponse(w, responses(ctx))
}
