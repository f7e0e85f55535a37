package attachment

import (
	"bytes"
	"context"
	"errors"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/store"
)

// Process moves an UPLOADED attachment through its states:
//
//   - SCANNING, when a scanner is configured: a clean scan goes on; a
//     signature found is FAILED(INFECTED), a scanner that cannot be
//     reached or answers nonsense is FAILED(SCANNER_UNAVAILABLE): the
//     hook fails closed;
//   - CHUNKING: the text is extracted (Text), chunked and embedded
//     (storeChunks); a file without text is FAILED(NO_TEXT), one that
//     cannot be read or embedded FAILED(PROCESSING_FAILED);
//   - READY.
//
// The bytes of a FAILED attachment are deleted at once; its row stays so
// that the client sees why. Each state change is written before the next
// step starts.
func (s *Service) Process(ctx context.Context, a *ent.Attachment) (*ent.Attachment, error) {
	data, err := s.blobs.Get(ctx, a.BlobKey)
	if err != nil {
		return s.fail(ctx, a, FailureProcessing)
	}
	if s.opts.Scanner != nil {
		if a, err = s.setStatus(ctx, a, attachment.StatusSCANNING); err != nil {
			return nil, err
		}
		verdict, err := s.opts.Scanner.Scan(ctx, bytes.NewReader(data))
		switch {
		case err != nil:
			return s.fail(ctx, a, FailureScannerUnavailable)
		case !verdict.Clean:
			return s.fail(ctx, a, FailureInfected)
		}
	}
	if a, err = s.setStatus(ctx, a, attachment.StatusCHUNKING); err != nil {
		return nil, err
	}
	text, err := Text(a.MediaType, data)
	if err == nil {
		err = s.storeChunks(ctx, a, text)
	}
	if err != nil {
		if errors.Is(err, errNoText) {
			return s.fail(ctx, a, FailureNoText)
		}
		return s.fail(ctx, a, FailureProcessing)
	}
	return s.setStatus(ctx, a, attachment.StatusREADY)
}

// setStatus writes a's new status.
func (s *Service) setStatus(ctx context.Context, a *ent.Attachment, st attachment.Status) (*ent.Attachment, error) {
	a, err := s.client.Attachment.UpdateOne(a).SetStatus(st).Save(ctx)
	if err != nil {
		return nil, store.DomainError(err, kind)
	}
	s.notify(ctx, a)
	return a, nil
}

// fail marks a FAILED with code and deletes its bytes.
func (s *Service) fail(ctx context.Context, a *ent.Attachment, code string) (*ent.Attachment, error) {
	a, err := s.client.Attachment.UpdateOne(a).SetStatus(attachment.StatusFAILED).SetFailureCode(code).Save(ctx)
	if err != nil {
		return nil, store.DomainError(err, kind)
	}
	s.deleteBlob(context.WithoutCancel(ctx), a.BlobKey)
	s.notify(ctx, a)
	return a, nil
}
