package persisted

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// ApolloManifestFormat is the format member of the manifest that Apollo's
// generate-persisted-query-manifest (and Apollo Kotlin and iOS) write.
const ApolloManifestFormat = "apollo-persisted-query-manifest"

// Manifest is an allow-list of trusted documents: their text by the id
// clients send. Every document is also found by the SHA-256 of its text,
// so that Apollo's APQ link finds a manifest entry whatever ids the
// manifest uses.
type Manifest struct {
	byID map[string]string
}

// apolloManifest is Apollo's manifest:
// {"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id","name","type","body"}]}.
type apolloManifest struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	Operations []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
		Body string `json:"body"`
	} `json:"operations"`
}

// LoadManifest reads the manifest at path.
func LoadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("persisted operations manifest: %w", err)
	}
	m, err := ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("persisted operations manifest %s: %w", path, err)
	}
	return m, nil
}

// ParseManifest parses a manifest in Apollo's format or Relay's
// (relay-compiler's persistConfig output: {"<id>": "<document text>"}).
func ParseManifest(b []byte) (*Manifest, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	m := &Manifest{byID: map[string]string{}}
	if _, ok := probe["format"]; ok {
		var a apolloManifest
		if err := json.Unmarshal(b, &a); err != nil {
			return nil, fmt.Errorf("apollo manifest: %w", err)
		}
		if a.Format != ApolloManifestFormat || a.Version != 1 {
			return nil, fmt.Errorf("unsupported manifest format %q version %d (want %q version 1)", a.Format, a.Version, ApolloManifestFormat)
		}
		for i, op := range a.Operations {
			if op.ID == "" || op.Body == "" {
				return nil, fmt.Errorf("operation %d (%s) has no id or body", i, op.Name)
			}
			m.add(op.ID, op.Body)
		}
		return m, nil
	}
	for id, raw := range probe {
		var body string
		if err := json.Unmarshal(raw, &body); err != nil || id == "" || body == "" {
			return nil, fmt.Errorf("relay manifest entry %q is not a non-empty document string", id)
		}
		m.add(id, body)
	}
	return m, nil
}

// add registers body under id and under its SHA-256.
func (m *Manifest) add(id, body string) {
	m.byID[id] = body
	m.byID[Hash(body)] = body
}

// Lookup returns the document registered under id.
func (m *Manifest) Lookup(id string) (string, bool) {
	if m == nil {
		return "", false
	}
	body, ok := m.byID[id]
	return body, ok
}

// Hash is the lowercase hex SHA-256 of a document's text, the APQ hash.
func Hash(query string) string {
	sum := sha256.Sum256([]byte(query))
	return hex.EncodeToString(sum[:])
}
