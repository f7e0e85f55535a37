// Package jsonenc encodes JSON for readers that are not HTML pages: the
// broker's frames and the conversation exports.
package jsonenc

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as compact JSON, as json.Marshal does but without
// escaping <, > and & in strings (and without the trailing newline of
// json.Encoder).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
