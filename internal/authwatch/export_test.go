package authwatch

// HeldStreams counts w's holds (for tests).
func HeldStreams(w *Viewers) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, hs := range w.holds {
		n += len(hs)
	}
	return n
}
