// Package gqlclient is a small GraphQL client for ragchat's end-to-end
// tests and benchmarks: queries and mutations over HTTP POST, and
// subscriptions over WebSocket (graphql-transport-ws or the legacy
// graphql-ws protocol) and SSE (graphql-sse, distinct connections mode).
// It counts the bytes it reads off the wire.
package gqlclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Response is one GraphQL response (or subscription payload).
type Response struct {
	Data       json.RawMessage `json:"data,omitempty"`
	Errors     []Error         `json:"errors,omitempty"`
	Extensions map[string]any  `json:"extensions,omitempty"`
}

// Error is one GraphQL error.
type Error struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// Code is the error's extensions.code.
func (e Error) Code() string {
	c, _ := e.Extensions["code"].(string)
	return c
}

// Codes lists the codes of r's errors.
func (r *Response) Codes() []string {
	out := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		out[i] = e.Code()
	}
	return out
}

// Decode unmarshals r.Data into v.
func (r *Response) Decode(v any) error {
	if len(r.Data) == 0 || string(r.Data) == "null" {
		return fmt.Errorf("gqlclient: no data (errors: %v)", r.Errors)
	}
	return json.Unmarshal(r.Data, v)
}

// Err returns an error describing r's GraphQL errors, or nil.
func (r *Response) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	return fmt.Errorf("graphql errors: %+v", r.Errors)
}

// Client talks to one GraphQL endpoint as one user.
type Client struct {
	// URL is the endpoint, e.g. http://127.0.0.1:8080/graphql.
	URL string
	// Token is sent as "Authorization: Bearer <Token>" (HTTP) and in the
	// WebSocket connection_init payload; empty sends none.
	Token string
	// Origin, if set, is sent as the Origin header.
	Origin string
	// HTTP is the client for POST and SSE (nil: a default client with
	// byte counting).
	HTTP *http.Client

	read atomic.Int64
}

// New returns a client for url acting with token.
func New(url, token string) *Client {
	c := &Client{URL: url, Token: token}
	c.HTTP = &http.Client{Transport: &http.Transport{
		DialContext:         c.countingDialer(),
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}}
	return c
}

// WithToken returns a client for the same endpoint acting with token.
func (c *Client) WithToken(token string) *Client {
	n := New(c.URL, token)
	n.Origin = c.Origin
	return n
}

// BytesRead is the number of bytes read off the wire so far (HTTP, SSE and
// WebSocket connections of this client).
func (c *Client) BytesRead() int64 { return c.read.Load() }

// countingDialer dials TCP connections that count the bytes read.
func (c *Client) countingDialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: conn, n: &c.read}, nil
	}
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Request is a GraphQL request body.
type Request struct {
	Query         string         `json:"query,omitempty"`
	Variables     map[string]any `json:"variables,omitempty"`
	OperationName string         `json:"operationName,omitempty"`
	Extensions    map[string]any `json:"extensions,omitempty"`
}

// Do runs a query or mutation over POST. A non-2xx answer with a GraphQL
// body is returned as a Response, not an error.
func (c *Client) Do(ctx context.Context, query string, vars map[string]any) (*Response, error) {
	_, resp, err := c.Post(ctx, Request{Query: query, Variables: vars}, nil)
	return resp, err
}

// Post sends body (a Request or any JSON value) and returns the HTTP
// status and the decoded response.
func (c *Client) Post(ctx context.Context, body any, header http.Header) (int, *Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	status, raw, err := c.PostRaw(ctx, b, header)
	if err != nil {
		return status, nil, err
	}
	var r Response
	if err := json.Unmarshal(raw, &r); err != nil {
		return status, nil, fmt.Errorf("gqlclient: HTTP %d: undecodable body %q: %w", status, truncate(raw), err)
	}
	return status, &r, nil
}

// PostRaw sends a raw JSON body and returns the status and raw answer.
func (c *Client) PostRaw(ctx context.Context, body []byte, header http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	c.setHeaders(req, header)
	res, err := c.httpClient().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}

func (c *Client) setHeaders(req *http.Request, extra http.Header) {
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.Origin != "" {
		req.Header.Set("Origin", c.Origin)
	}
	for k, vs := range extra {
		req.Header[k] = vs
	}
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
