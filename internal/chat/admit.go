package chat

import "github.com/ragchat/ragchat/internal/admission"

// heldSlot is an ask's admission slot (internal/admission) until the
// answer's run takes it over: asks, retries, edits and reasks take one
// before they write anything, release it when they end without starting
// an answer, and hand it to the run otherwise, which releases it when the
// answer ends (internal/admission/README.md).
type heldSlot struct {
	slot *admission.Slot
}

// take hands the slot over to the caller (the run), which must release it.
func (h *heldSlot) take() *admission.Slot {
	s := h.slot
	h.slot = nil
	return s
}

// release gives the slot back unless it was taken.
func (h *heldSlot) release() {
	h.slot.Release()
	h.slot = nil
}
