package server

import (
	"strings"
	"testing"
)

// TestParseTWSMessage checks client messages against the
// graphql-transport-ws message formats.
func TestParseTWSMessage(t *testing.T) {
	cases := []struct {
		frame string
		ok    bool
	}{
		{`{"type":"connection_init"}`, true},
		{`{"type":"connection_init","payload":null}`, true},
		{`{"type":"connection_init","payload":{"Authorization":"Bearer x"}}`, true},
		{`{"type":"connection_init","payload":"Bearer x"}`, false},
		{`{"type":"ping","payload":{"n":1}}`, true},
		{`{"type":"pong"}`, true},
		{`{"type":"ping","payload":[1]}`, false},
		{`{"type":"subscribe","id":"1","payload":{"query":"{ a }"}}`, true},
		{`{"type":"subscribe","id":"1","payload":{"query":"{ a }","variables":null,"operationName":null,"extensions":{}}}`, true},
		{`{"type":"subscribe","id":"1","payload":{"query":"{ a }","variables":{"x":1},"operationName":"A"}}`, true},
		{`{"type":"subscribe","id":"","payload":{"query":"{ a }"}}`, false},
		{`{"type":"subscribe","id":1,"payload":{"query":"{ a }"}}`, false},
		{`{"type":"subscribe","payload":{"query":"{ a }"}}`, false},
		{`{"type":"subscribe","id":"1"}`, false},
		{`{"type":"subscribe","id":"1","payload":{"query":1}}`, false},
		{`{"type":"subscribe","id":"1","payload":{"query":"{ a }","variables":[]}}`, false},
		{`{"type":"subscribe","id":"1","payload":{"query":"{ a }","operationName":3}}`, false},
		{`{"type":"complete","id":"1"}`, true},
		{`{"type":"complete"}`, false},
		{`{"type":"next","id":"1","payload":{}}`, false},
		{`{"type":"connection_ack"}`, false},
		{`{"type":"error","id":"1","payload":[]}`, false},
		{`{"type":"hello"}`, false},
		{`{"type":7}`, false},
		{`{}`, false},
		{`null`, false},
		{`[]`, false},
		{`"connection_init"`, false},
		{`{"type":`, false},
		{``, false},
	}
	for _, tc := range cases {
		_, err := parseTWSMessage([]byte(tc.frame))
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok %v", tc.frame, err, tc.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "Invalid message received") && !strings.HasPrefix(err.Error(), "Unexpected message") {
			t.Errorf("%s: reason %q", tc.frame, err)
		}
		if err != nil && len(err.Error()) > 123 {
			t.Errorf("%s: reason longer than a close frame allows", tc.frame)
		}
	}
}
