package gqlclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// SubscribeSSE runs an operation over graphql-sse (distinct connections
// mode): one POST with Accept: text/event-stream whose "next" events carry
// the payloads and whose "complete" event ends it. Cancelling ctx or
// calling Stop closes the stream.
func (c *Client) SubscribeSSE(ctx context.Context, query string, vars map[string]any) (*Subscription, error) {
	body, err := json.Marshal(Request{Query: query, Variables: vars})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	c.setHeaders(req, nil)
	res, err := c.httpClient().Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer cancel()
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var r Response
		if json.Unmarshal(raw, &r) == nil && len(r.Errors) > 0 {
			s := newSubscription(nil)
			s.push(&r)
			s.finish(nil)
			return s, nil
		}
		return nil, fmt.Errorf("gqlclient: SSE: HTTP %d: %s", res.StatusCode, truncate(raw))
	}
	s := newSubscription(cancel)
	go readSSE(res.Body, s, cancel)
	return s, nil
}

// readSSE parses the event stream into s.
func readSSE(body io.ReadCloser, s *Subscription, cancel context.CancelFunc) {
	defer cancel()
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var event string
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			switch event {
			case "next":
				var r Response
				if json.Unmarshal([]byte(data.String()), &r) == nil {
					s.push(&r)
				}
			case "complete":
				s.finish(nil)
				return
			}
			event = ""
			data.Reset()
		case strings.HasPrefix(line, ":"):
			// comment (keep-alive)
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.ErrUnexpectedEOF // the stream ended without "complete"
	}
	s.finish(err)
}
