package attachment

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/predicate"
)

// errLost ends an attempt whose attachment was taken over (its lease ran
// out and another attempt began) or finished meanwhile: it writes
// nothing more.
var errLost = errors.New("attachment: the attempt lost its lease")

// failure is an attempt's end with a failure code.
type failure struct {
	code string
	err  error
}

func (f *failure) Error() string { return f.code + ": " + f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

func failed(code string, err error) error { return &failure{code: code, err: err} }

// process runs one attempt of a, which claim started (a.Attempts is this
// attempt's), in the pool, within ctx (the deadline, the pool's
// shutdown), as the attachment job:
//
//   - SCANNING, when a scanner is configured: a clean scan goes on; a
//     signature found is FAILED(INFECTED), a scanner that cannot be
//     reached or answers nonsense is FAILED(SCANNER_UNAVAILABLE): the
//     hook fails closed;
//   - CHUNKING: the text is extracted (Extract, a PDF in the sandbox when
//     one is configured) within Options.Limits, chunked and embedded
//     (storeChunks); a file without text is FAILED(NO_TEXT), a PDF with
//     too many pages FAILED(TOO_MANY_PAGES), one that cannot be read or
//     embedded FAILED(PROCESSING_FAILED);
//   - READY, in the transaction that stores the chunks.
//
// The bytes of a FAILED attachment are deleted at once; its row stays so
// that the client sees why. Each state change is written, fenced by the
// attempt, before the next step starts, and reported (Options.Notify).
// When ctx ends first, process writes nothing and returns false: the
// pool writes the verdict (pool.attempt). It returns true when the
// attempt ended by itself (its outcome written, or taken over).
func (s *Service) process(ctx context.Context, a *ent.Attachment) bool {
	err := s.steps(ctx, a)
	if err == nil || errors.Is(err, errLost) {
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	code := FailureProcessing
	var f *failure
	if errors.As(err, &f) {
		code = f.code
	}
	if code == FailureProcessing {
		s.opts.Logger.Warn("attachment: processing failed", "attachment", a.ID, "err", err)
	}
	wctx, cancel := writeContext(ctx)
	defer cancel()
	if _, err := s.fail(wctx, a, code); err != nil {
		s.opts.Logger.Warn("attachment: failure not written", "attachment", a.ID, "err", err)
	}
	return true
}

// steps runs the states of process.
func (s *Service) steps(ctx context.Context, a *ent.Attachment) error {
	data, err := s.blobs.Get(sys(ctx), a.BlobKey)
	if err != nil {
		return failed(FailureProcessing, err)
	}
	if s.opts.Scanner != nil {
		if a, err = s.setStatus(ctx, a, attachment.StatusSCANNING); err != nil {
			return err
		}
		verdict, err := s.opts.Scanner.Scan(ctx, bytes.NewReader(data))
		switch {
		case err != nil:
			return failed(FailureScannerUnavailable, err)
		case !verdict.Clean:
			return failed(FailureInfected, errors.New("a signature was found"))
		}
	}
	if a, err = s.setStatus(ctx, a, attachment.StatusCHUNKING); err != nil {
		return err
	}
	ex, err := s.extract(ctx, a.MediaType, data)
	data = nil
	var pages *PageLimitError
	switch {
	case errors.Is(err, errNoText):
		return failed(FailureNoText, err)
	case errors.As(err, &pages):
		return failed(FailureTooManyPages, err)
	case err != nil:
		return failed(FailureProcessing, err)
	}
	ready, err := s.storeChunks(ctx, a, ex.Text)
	if err != nil {
		if errors.Is(err, errNoText) {
			return failed(FailureNoText, err)
		}
		if errors.Is(err, errLost) {
			return err
		}
		return failed(FailureProcessing, err)
	}
	s.notify(ctx, ready)
	return nil
}

// extract returns the text of data: a PDF's in the sandbox when one is
// configured, any other in this process.
func (s *Service) extract(ctx context.Context, mediaType string, data []byte) (Extraction, error) {
	if mediaType == TypePDF && s.opts.Sandbox != nil {
		return s.opts.Sandbox.Extract(ctx, mediaType, data, s.opts.Limits)
	}
	return Extract(ctx, mediaType, data, s.opts.Limits)
}

// interrupted writes the verdict on an attempt whose context ended
// before it did: after a shutdown it gives the attempt back (it does not
// count); after the deadline it hands the attachment to Recover for its
// retry, or fails it PROCESSING_TIMEOUT when this was its last attempt.
func (s *Service) interrupted(a *ent.Attachment, shutdown bool) {
	ctx, cancel := writeContext(context.Background())
	defer cancel()
	var err error
	switch {
	case shutdown:
		err = s.expire(ctx, a, true)
	case a.Attempts >= maxAttempts:
		_, err = s.fail(ctx, a, FailureTimeout)
	default:
		err = s.expire(ctx, a, false)
	}
	if err != nil {
		s.opts.Logger.Warn("attachment: interrupted attempt not recorded", "attachment", a.ID, "err", err)
	}
}

// writeContext is the context of a write that must happen although the
// attempt's context ended: ctx's values without its cancellation, for at
// most 10 s.
func writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}

// setStatus writes a's new status within its attempt.
func (s *Service) setStatus(ctx context.Context, a *ent.Attachment, st attachment.Status) (*ent.Attachment, error) {
	n, err := s.client.Attachment.Update().Where(fenced(a.ID, a.Attempts)).SetStatus(st).Save(sys(ctx))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errLost
	}
	a, err = s.client.Attachment.Get(sys(ctx), a.ID)
	if err != nil {
		return nil, err
	}
	s.notify(ctx, a)
	return a, nil
}

// fail marks a FAILED with code, within its attempt and where, ends its
// lease and deletes its bytes. It reports whether it did (false: the
// attempt was taken over or the attachment finished meanwhile).
func (s *Service) fail(ctx context.Context, a *ent.Attachment, code string, where ...predicate.Attachment) (bool, error) {
	n, err := s.client.Attachment.Update().Where(append(where, fenced(a.ID, a.Attempts))...).
		SetStatus(attachment.StatusFAILED).SetFailureCode(code).ClearLeaseUntil().Save(sys(ctx))
	if err != nil || n == 0 {
		return false, err
	}
	s.deleteBlob(context.WithoutCancel(ctx), a.BlobKey)
	if a, err = s.client.Attachment.Get(sys(ctx), a.ID); err == nil {
		s.notify(ctx, a)
	}
	return true, nil
}
