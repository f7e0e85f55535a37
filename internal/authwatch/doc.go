// Package authwatch carries changes of authorisation that open streams must
// see to every replica, through the broker (internal/broker), so that a
// long-lived subscription never shows what a fresh query would hide:
//
//   - Access stamps document-access changes (an access list set, a document
//     deleted or its chunks replaced) per tenant. A subscription caches its
//     re-authorised citations under the stamp it read before checking
//     them, and checks again once the stamp moves: no database read per
//     event while nothing changed, one after a change.
//   - Viewers notices when a user presents a token issued later than an
//     earlier one with other roles or groups, and ends the streams opened
//     with the older token on every replica.
//
// Both follow broker topics of their own. When the broker may have lost
// events (a Distributed broker's bus reconnected, or a subscription
// lagged), Access moves every stamp, so that every cached verdict is
// checked again (internal/broker/README.md).
package authwatch
