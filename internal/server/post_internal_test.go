package server

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestWriteResponseMatchesEncodingJSON checks that writeResponse, which
// copies the executor's data as it is, writes the same JSON as gqlgen's
// POST transport (json.Marshal of the response): byte for byte when the
// data holds no character encoding/json would escape, and the same value
// otherwise.
func TestWriteResponseMatchesEncodingJSON(t *testing.T) {
	yes := true
	tests := []struct {
		name      string
		resp      *graphql.Response
		sameBytes bool
	}{
		{"data", &graphql.Response{Data: json.RawMessage(`{"conversation":{"messages":{"edges":[{"node":{"id":"1","content":"héllo \"x\" \u2028"}}]}}}`)}, true},
		{"nil data", &graphql.Response{}, true},
		{"nil response", nil, true},
		{"errors and null data", &graphql.Response{Errors: gqlerror.List{{Message: "bad", Path: ast.Path{ast.PathName("a"), ast.PathIndex(2)}, Extensions: map[string]any{"code": "BAD_USER_INPUT"}}}}, true},
		{"errors, data and extensions", &graphql.Response{
			Errors:     gqlerror.List{{Message: "partial"}},
			Data:       json.RawMessage(`{"a":null,"b":[1,2.5,"c"]}`),
			Extensions: map[string]any{"cost": 12, "trace": "abc"},
		}, true},
		{"html characters", &graphql.Response{Data: json.RawMessage(`{"content":"<b>a & b</b>"}`)}, false},
		{"incremental part", &graphql.Response{Data: json.RawMessage(`{"x":1}`), Label: "l", Path: ast.Path{ast.PathName("q")}, HasNext: &yes}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			writeResponse(&got, tt.resp)
			resp := tt.resp
			if resp == nil {
				resp = &graphql.Response{}
			}
			want, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if tt.sameBytes && got.String() != string(want) {
				t.Fatalf("writeResponse wrote\n%s\nwant\n%s", got.String(), want)
			}
			var g, w any
			if err := json.Unmarshal(got.Bytes(), &g); err != nil {
				t.Fatalf("invalid JSON %s: %v", got.String(), err)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("writeResponse value %v, want %v", g, w)
			}
		})
	}
}

// TestResponseContentType checks the Accept negotiation against gqlgen's
// default POST transport.
func TestResponseContentType(t *testing.T) {
	tests := []struct{ accept, want string }{
		{"", contentTypeJSON},
		{"*/*", contentTypeJSON},
		{"application/json", contentTypeJSON},
		{"application/graphql-response+json", contentTypeGraphQLResponse},
		{"application/graphql-response+json, application/json;q=0.9", contentTypeGraphQLResponse},
		{"text/html", contentTypeGraphQLResponse},
		{"garbage;;, application/*", contentTypeJSON},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", "/graphql", nil)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		if got := responseContentType(r); got != tt.want {
			t.Errorf("Accept %q: got %q, want %q", tt.accept, got, tt.want)
		}
	}
}
