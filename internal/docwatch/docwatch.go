// Package docwatch carries "these documents changed" from the replica that
// changed them to the open streams of every replica, coalesced per tenant:
// at most one broadcast per tenant per interval, whatever the number of
// changed documents (internal/docwatch/README.md).
package docwatch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/broker"
)

// Kind is the broker event kind of a broadcast.
const Kind = "DOCUMENTS_CHANGED"

// MaxIDs is the most document ids one broadcast lists. Past it the
// broadcast says Many, and subscribers re-check every document changed
// since Since. 128 ids keep the payload near 5 KB, under a NOTIFY
// payload's limit.
const MaxIDs = 128

// sinceSlack is how far before the first change of a batch its Since
// lies: a document's updated_at is written inside the transaction, before
// the change is reported, and a re-check that finds a little more than
// changed only costs a spurious refetch.
const sinceSlack = time.Minute

// Topic is the broker topic of tenant's document changes. The id is hashed
// so that the topic is short and made of safe characters for any broker;
// the payload names the tenant, and subscribers check it.
func Topic(tenant string) string {
	sum := sha256.Sum256([]byte(tenant))
	return "docwatch:" + hex.EncodeToString(sum[:16])
}

// Batch is one broadcast: the distinct documents of Tenant changed since
// the previous broadcast, or, when Many, more than MaxIDs of them; then
// Docs is empty and every document updated at or after Since may have
// changed.
type Batch struct {
	Tenant string      `json:"tn"`
	Docs   []uuid.UUID `json:"d,omitempty"`
	Many   bool        `json:"m,omitempty"`
	Since  time.Time   `json:"s"`
}

// Decode returns the batch an event of Topic(tenant) carries, and whether
// it is one of tenant's.
func Decode(ev broker.Event, tenant string) (Batch, bool) {
	var b Batch
	if ev.Kind != Kind || json.Unmarshal(ev.Data, &b) != nil || b.Tenant != tenant {
		return Batch{}, false
	}
	if !b.Many && len(b.Docs) == 0 {
		return Batch{}, false
	}
	return b, true
}
