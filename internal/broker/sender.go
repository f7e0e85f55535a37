package broker

import (
	"context"
	"time"
)

// run is the sender goroutine: it waits for queued items, lets a batch
// gather for FlushInterval, and sends batches until the queue is empty,
// retrying each until the bus takes it. On Close it sends what is left
// once, within CloseTimeout.
func (d *Distributed) run() {
	defer close(d.senderDone)
	var timer *time.Timer
	for {
		select {
		case <-d.stop:
			d.flushOnClose(nil, nil)
			return
		case <-d.out.wake:
		}
		if d.opts.FlushInterval > 0 {
			if timer == nil {
				timer = time.NewTimer(d.opts.FlushInterval)
			} else {
				timer.Reset(d.opts.FlushInterval)
			}
			select {
			case <-d.stop:
				timer.Stop()
				d.flushOnClose(nil, nil)
				return
			case <-timer.C:
			case <-d.out.full:
				timer.Stop()
			}
		}
		for {
			if !d.waitGate() {
				d.flushOnClose(nil, nil)
				return
			}
			frames, batch := d.nextBatch()
			if frames == nil {
				break
			}
			if !d.sendRetrying(frames, batch) {
				d.flushOnClose(frames, batch)
				return
			}
		}
	}
}

// nextBatch takes the next batch off the queue and encodes it as frames.
// It returns nil when the queue is empty.
func (d *Distributed) nextBatch() (frames [][]byte, items []*outItem) {
	for {
		batch, lost := d.out.take(d.opts.MaxBatchEvents, d.opts.MaxBatchBytes)
		if len(batch) == 0 && len(lost) == 0 {
			return nil, nil
		}
		body, err := encodeBatch(batch, lost)
		if err == nil {
			frames, err = splitFrames(d.origin, &d.txSeq, body, d.bus.maxFrame()-sealOverhead)
		}
		if err == nil {
			return frames, batch
		}
		d.opts.Logger.Error("broker: cannot encode a batch; its events are dropped", "events", len(batch), "err", err)
		d.out.discard(batch)
	}
}

// sendRetrying sends frames, retrying with backoff until the bus takes
// them, or refuses them for good. A refused batch is dropped, counted and
// announced like a queue overflow, so one bad batch never blocks the bus;
// its frame seqs are taken back, since none of its frames was sent, so
// that receivers see no gap in the seqs (which would reset every stream
// they relay, not only the ones the lost markers name). It returns false
// when the broker closes first.
func (d *Distributed) sendRetrying(frames [][]byte, items []*outItem) bool {
	backoff := defaultRetryMin
	failing := false
	for {
		ctx, cancel := context.WithTimeout(d.ctx, d.opts.SendTimeout)
		err := d.bus.send(ctx, d.sealAll(frames))
		cancel()
		if err == nil {
			d.stats.sent.Add(uint64(len(items)))
			d.stats.frames.Add(uint64(len(frames)))
			if failing {
				d.opts.Logger.Info("broker: bus send works again")
			}
			return true
		}
		d.stats.sendErrors.Add(1)
		if d.bus.permanent(err) {
			d.opts.Logger.Error("broker: the bus refused a batch; its events are dropped", "events", len(items), "err", err)
			d.txSeq -= uint64(len(frames)) // the last seqs numbered (nextBatch)
			d.out.discard(items)
			return true
		}
		if !failing {
			d.opts.Logger.Warn("broker: bus send failed; retrying, events queue meanwhile", "err", err)
			failing = true
		}
		select {
		case <-d.stop:
			return false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, defaultRetryMax)
		if !d.waitGate() {
			return false
		}
	}
}

// flushOnClose sends the batch whose send was interrupted (if any) and
// what is still queued, once, until Close gives up (CloseTimeout).
func (d *Distributed) flushOnClose(frames [][]byte, batch []*outItem) {
	ctx, cancel := context.WithTimeout(d.ctx, d.opts.CloseTimeout)
	defer cancel()
	for ctx.Err() == nil {
		if frames == nil {
			if frames, batch = d.nextBatch(); frames == nil {
				return
			}
		}
		if err := d.bus.send(ctx, d.sealAll(frames)); err != nil {
			d.opts.Logger.Warn("broker: events still queued at close were not sent", "err", err)
			return
		}
		d.stats.sent.Add(uint64(len(batch)))
		d.stats.frames.Add(uint64(len(frames)))
		frames = nil
	}
}

// sealAll seals frames for one send attempt. Each attempt seals anew, so
// that a batch retried while the bus was down carries its sending time,
// not its first attempt's, and is not taken for a replay.
func (d *Distributed) sealAll(frames [][]byte) [][]byte {
	now := time.Now()
	out := make([][]byte, len(frames))
	for i, f := range frames {
		out[i] = d.seal.seal(f, now)
	}
	return out
}

// waitGate waits while a test holds the sender. It returns false when the
// broker closes first.
func (d *Distributed) waitGate() bool {
	g := d.gate.Load()
	if g == nil {
		return true
	}
	select {
	case <-*g:
		return true
	case <-d.stop:
		return false
	}
}
