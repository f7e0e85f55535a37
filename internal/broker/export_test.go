package broker

// HoldSender makes d's sender wait before it takes its next batch, and
// before each retry, until release is called; events queue (and merge)
// meanwhile. Tests use it to make batching deterministic and to keep a
// batch until every listener is connected again.
func HoldSender(d *Distributed) (release func()) {
	g := make(chan struct{})
	d.gate.Store(&g)
	return func() {
		if d.gate.CompareAndSwap(&g, nil) {
			close(g)
		}
	}
}

// SyncListener returns once the bus has every subscription d's connection
// made: on NATS, a reconnect resends the subscription and then reports it
// (Stats().Resets), but the server may not have processed it yet, and a
// frame another instance publishes meanwhile is not delivered to d; a
// flush (the server answers d's ping after it processed what came before)
// closes that window. PostgreSQL's listener has LISTENed again before it
// reports the reconnect.
func SyncListener(d *Distributed) error {
	if nb, ok := d.bus.(*natsBus); ok {
		return flush(d.ctx, nb.nc)
	}
	return nil
}
