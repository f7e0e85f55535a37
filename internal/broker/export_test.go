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
