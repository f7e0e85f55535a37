package server

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The graphql-transport-ws protocol (the protocol of the graphql-ws
// library): its subprotocol name, message types and close codes.
const (
	subprotocolTransportWS = "graphql-transport-ws"
	subprotocolLegacyWS    = "graphql-ws" // subscriptions-transport-ws, served by gqlgen

	msgConnectionInit = "connection_init"
	msgConnectionAck  = "connection_ack"
	msgPing           = "ping"
	msgPong           = "pong"
	msgSubscribe      = "subscribe"
	msgNext           = "next"
	msgError          = "error"
	msgComplete       = "complete"

	// CloseBadRequest: a malformed message or one of an unexpected type.
	CloseBadRequest = 4400
	// CloseUnauthorized: subscribe before the connection was acknowledged.
	CloseUnauthorized = 4401
	// CloseInitTimeout: no connection_init within the init timeout.
	CloseInitTimeout = 4408
	// CloseSubscriberExists: subscribe with the id of an active operation.
	CloseSubscriberExists = 4409
	// CloseTooManyInits: a second connection_init.
	CloseTooManyInits = 4429
)

// twsMessage is one client message of graphql-transport-ws.
type twsMessage struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// parseTWSMessage decodes and checks a client message as the protocol
// defines it: a JSON object with a string type; connection_init, ping and
// pong may carry an object payload; subscribe needs a non-empty id and a
// payload with a string query (variables and extensions objects,
// operationName a string, each optional); complete needs a non-empty id.
// Any other type, including the server's own (connection_ack, next,
// error), is refused. The error is the reason sent with close code 4400.
func parseTWSMessage(data []byte) (twsMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return twsMessage{}, fmt.Errorf("Invalid message received: not a JSON object")
	}
	var m twsMessage
	if jsonKind(fields["type"]) != 's' {
		return m, fmt.Errorf("Invalid message received: 'type' must be a string")
	}
	_ = json.Unmarshal(fields["type"], &m.Type)
	if raw, ok := fields["id"]; ok && jsonKind(raw) != 'n' {
		if jsonKind(raw) != 's' {
			return m, fmt.Errorf("Invalid message received: 'id' must be a string")
		}
		_ = json.Unmarshal(raw, &m.ID)
	}
	if raw := fields["payload"]; jsonKind(raw) != 'n' {
		m.Payload = raw
	}
	switch m.Type {
	case msgConnectionInit, msgPing, msgPong:
		if !objectOrNull(m.Payload) {
			return m, fmt.Errorf("Invalid message received: %q payload must be an object", m.Type)
		}
	case msgSubscribe:
		if m.ID == "" {
			return m, fmt.Errorf("Invalid message received: subscribe needs an id")
		}
		var p map[string]json.RawMessage
		if jsonKind(m.Payload) != 'o' || json.Unmarshal(m.Payload, &p) != nil {
			return m, fmt.Errorf("Invalid message received: subscribe payload must be an object")
		}
		switch {
		case jsonKind(p["query"]) != 's':
			return m, fmt.Errorf("Invalid message received: subscribe payload needs a string query")
		case !objectOrNull(p["variables"]), !objectOrNull(p["extensions"]):
			return m, fmt.Errorf("Invalid message received: variables and extensions must be objects")
		case jsonKind(p["operationName"]) != 'n' && jsonKind(p["operationName"]) != 's':
			return m, fmt.Errorf("Invalid message received: operationName must be a string")
		}
	case msgComplete:
		if m.ID == "" {
			return m, fmt.Errorf("Invalid message received: complete needs an id")
		}
	default:
		return m, fmt.Errorf("Unexpected message of type %.40q received", m.Type)
	}
	return m, nil
}

// jsonKind classifies a raw JSON value by its first byte: 'o' object, 'a'
// array, 's' string, 'n' null or absent, 'v' anything else.
func jsonKind(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 'n'
	}
	switch raw[0] {
	case '{':
		return 'o'
	case '[':
		return 'a'
	case '"':
		return 's'
	case 'n':
		return 'n'
	}
	return 'v'
}

// objectOrNull reports whether raw is absent, null or an object.
func objectOrNull(raw json.RawMessage) bool {
	k := jsonKind(raw)
	return k == 'n' || k == 'o'
}
