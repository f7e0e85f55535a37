// Package chans holds helpers for channels shared by the streaming code.
package chans

// Drain receives from src until it closes. A consumer that stops reading
// early drains the channel so that its sender, which closes it once its
// context ends, is never left blocked.
func Drain[E any](src <-chan E) {
	for range src {
	}
}
