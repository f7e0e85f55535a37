package broker

// HoldSender makes d's sender wait before it takes its next batch, and
// before each retry, until release is called; events queue (and merge)
// meanwhile. Tests use it to make batching deterministic and to keep a
// batch until every listener is connected again.
func HoldSender(d *Distributed) (release func()) {
	g := make(chan struct{})
	d.gateMu.Lock()
	d.gate = g
	d.gateMu.Unlock()
	return func() {
		d.gateMu.Lock()
		if d.gate == g {
			d.gate = nil
			close(g)
		}
		d.gateMu.Unlock()
	}
}
