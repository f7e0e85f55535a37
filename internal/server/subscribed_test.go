package server_test

import (
	"context"
	"fmt"
	"github.com/google/uuid"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// subscribedRounds is how many times TestSubscribedMeansLive subscribes on
// each transport, feed and deployment.
const subscribedRounds = 20

// subscribedEvent is one viewerEvents or conversationEvents payload as
// TestSubscribedMeansLive reads it.
type subscribedEvent struct {
	Kind           string
	ConversationID *string
	Conversation   *struct{ ID, Title string }
}

// subscribeOn opens a subscription over one transport.
type subscribeOn func(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) *gqlclient.Subscription

// subscribedTransports are the transports a subscription is served on:
// graphql-transport-ws, the legacy graphql-ws and graphql-sse, none of
// which acknowledges a subscribe.
var subscribedTransports = []struct {
	name string
	open subscribeOn
}{
	{"graphql-transport-ws", wsSubscriber(gqlclient.ProtocolTransportWS)},
	{"graphql-ws (legacy)", wsSubscriber(gqlclient.ProtocolLegacyWS)},
	{"graphql-sse", func(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) *gqlclient.Subscription {
		t.Helper()
		sub, err := c.SubscribeSSE(ctxT(t), query, vars)
		if err != nil {
			t.Fatal(err)
		}
		return sub
	}},
}

// wsSubscriber subscribes over a WebSocket of protocol proto, one
// connection per subscription.
func wsSubscriber(proto string) subscribeOn {
	return func(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) *gqlclient.Subscription {
		t.Helper()
		ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{Protocol: proto})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ws.Close)
		sub, err := ws.Subscribe(query, vars)
		if err != nil {
			t.Fatal(err)
		}
		return sub
	}
}

// nextSubscribed returns sub's next event of field (the deadline is a hang
// guard: a missed event fails here).
func nextSubscribed(t *testing.T, sub *gqlclient.Subscription, field string) subscribedEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	r, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("%s errors: %+v", field, r.Errors)
	}
	var out map[string]subscribedEvent
	if err := r.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out[field]
}

// TestSubscribedMeansLive (docs/API.md, "Knowing a stream is live"): the
// first event of viewerEvents and of conversationEvents is SUBSCRIBED
// (viewerEvents: about no conversation; conversationEvents: with the
// conversation as it is then), and a change made as soon as the client
// has it always reaches the stream, with no probing or retry (on one
// instance as the very next event; from another, after whatever the bus
// was still delivering of earlier changes):
// subscribedRounds subscriptions per transport (graphql-transport-ws, the
// legacy graphql-ws, graphql-sse) and feed, on one instance on both
// backends, and with the change made on another instance, each with its
// own PostgreSQL LISTEN/NOTIFY broker.
func TestSubscribedMeansLive(t *testing.T) {
	feeds := []struct {
		field, query string
		vars         func(conv string) map[string]any
	}{
		{"viewerEvents", `subscription { viewerEvents { kind conversationId conversation { id title } } }`,
			func(string) map[string]any { return nil }},
		{"conversationEvents", `subscription($c: ID!) { conversationEvents(conversationId: $c) { kind conversationId conversation { id title } } }`,
			func(conv string) map[string]any { return map[string]any{"c": conv} }},
	}
	// run follows alice's feeds on serve while her changes go through act.
	run := func(t *testing.T, serve, act *servertest.Harness) {
		reader, writer := serve.Client(t, "alice"), act.Client(t, "alice")
		conv := createTitled(t, writer, "before")
		for _, tr := range subscribedTransports {
			for _, f := range feeds {
				t.Run(tr.name+"/"+f.field, func(t *testing.T) {
					for i := range subscribedRounds {
						sub := tr.open(t, reader, f.query, f.vars(conv))
						first := nextSubscribed(t, sub, f.field)
						if first.Kind != "SUBSCRIBED" {
							t.Fatalf("round %d: first event %+v, want SUBSCRIBED", i, first)
						}
						switch f.field {
						case "viewerEvents":
							if first.ConversationID == nil || *first.ConversationID != uuid.Nil.String() || first.Conversation != nil {
								t.Fatalf("round %d: viewerEvents SUBSCRIBED names a conversation: %+v", i, first)
							}
						default:
							if first.ConversationID == nil || *first.ConversationID != conv || first.Conversation == nil || first.Conversation.ID != conv {
								t.Fatalf("round %d: conversationEvents SUBSCRIBED %+v, want conversation %s", i, first, conv)
							}
						}
						title := fmt.Sprintf("%s %s %d", tr.name, f.field, i)
						mustDo(t, writer, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`,
							map[string]any{"c": conv, "t": title}, nil)
						renamed := func(ev subscribedEvent) bool {
							return ev.Kind == "CONVERSATION_UPDATED" && ev.Conversation != nil && ev.Conversation.Title == title
						}
						ev := nextSubscribed(t, sub, f.field)
						// From another instance, a change made before
						// SUBSCRIBED may still be on its way through the
						// bus; on one instance nothing comes in between.
						for serve != act && !renamed(ev) {
							ev = nextSubscribed(t, sub, f.field)
						}
						if !renamed(ev) {
							t.Fatalf("round %d: the event after SUBSCRIBED is %+v, want CONVERSATION_UPDATED titled %q", i, ev, title)
						}
						sub.Stop()
					}
				})
			}
		}
	}
	t.Run("one instance", func(t *testing.T) {
		eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) { run(t, h, h) })
	})
	t.Run("another instance", func(t *testing.T) {
		// Two instances with their own LISTEN/NOTIFY brokers.
		pg := testdb.PostgresBackend(t)
		a := servertest.Start(t, pg, servertest.Options{PostgresBroker: true})
		b := servertest.Start(t, pg, servertest.Options{PostgresBroker: true, Beside: a})
		run(t, b, a)
	})
}
