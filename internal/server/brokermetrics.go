package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ragchat/ragchat/internal/broker"
)

// brokerCollector exports a distributed broker's counters
// (internal/broker/README.md): what it sent, received, merged and dropped,
// the losses it
// detected, and its queue. It reads Stats on every scrape.
type brokerCollector struct {
	stats func() broker.DistributedStats

	queued, topics, subscribers                 *prometheus.Desc
	sent, frames, sendErrors, merged, received  *prometheus.Desc
	dropped, droppedPriority, gaps, resets, bad *prometheus.Desc
	rejected                                    *prometheus.Desc
}

// WatchBroker exports the counters of a distributed broker under
// ragchat_broker_*. Call it once, at start.
func (m *Metrics) WatchBroker(stats func() broker.DistributedStats) {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("ragchat_broker_"+name, help, nil, nil)
	}
	m.registry.MustRegister(&brokerCollector{
		stats:           stats,
		queued:          d("queued_events", "Events waiting to be sent to the other instances."),
		topics:          d("topics", "Topics held by this instance's local broker."),
		subscribers:     d("subscribers", "Live subscriptions on this instance."),
		sent:            d("sent_events_total", "Events (and retirements) sent to the bus; merged deltas count once."),
		frames:          d("frames_total", "NOTIFY payloads or NATS messages sent."),
		sendErrors:      d("send_errors_total", "Failed sends to the bus (each retried)."),
		merged:          d("merged_deltas_total", "Deltas merged into a queued one before sending."),
		received:        d("received_events_total", "Events received from other instances."),
		dropped:         d("dropped_deltas_total", "Deltas dropped because the outbound queue was full (subscribers elsewhere resync)."),
		droppedPriority: d("dropped_priority_events_total", "Non-delta events dropped past twice the queue size."),
		gaps:            d("gaps_total", "Topics found to have missed another instance's events (their subscribers resynced)."),
		resets:          d("resets_total", "Times the bus may have lost events (reconnects); every remote-fed topic resynced."),
		bad:             d("bad_frames_total", "Authenticated frames from the bus that could not be decoded."),
		rejected: d("rejected_frames_total", "Frames from the bus dropped unread: not sealed with this deployment's "+
			"RAGCHAT_BROKER_SECRET for this channel (a forgery, a replica with another secret), or outside the replay window."),
	})
}

// Describe implements prometheus.Collector.
func (c *brokerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.queued, c.topics, c.subscribers, c.sent, c.frames, c.sendErrors,
		c.merged, c.received, c.dropped, c.droppedPriority, c.gaps, c.resets, c.bad, c.rejected} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *brokerCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	gauge := func(d *prometheus.Desc, v int) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	counter := func(d *prometheus.Desc, v uint64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(c.queued, s.Queued)
	gauge(c.topics, s.Topics)
	gauge(c.subscribers, s.Subscribers)
	counter(c.sent, s.Sent)
	counter(c.frames, s.Frames)
	counter(c.sendErrors, s.SendErrors)
	counter(c.merged, s.Merged)
	counter(c.received, s.Received)
	counter(c.dropped, s.Dropped)
	counter(c.droppedPriority, s.DroppedPriority)
	counter(c.gaps, s.Gaps)
	counter(c.resets, s.Resets)
	counter(c.bad, s.BadFrames)
	counter(c.rejected, s.RejectedFrames)
}
