// Package waitgroup lets a shutdown wait for a sync.WaitGroup and for its
// context at once.
package waitgroup

import "sync"

// Done returns a channel that is closed once wg's counter reaches zero.
// The goroutine that waits for it ends then, not before.
func Done(wg *sync.WaitGroup) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}
