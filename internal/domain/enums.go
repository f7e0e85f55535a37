package domain

// FailureCode says why an attempt FAILED. The values are stable.
type FailureCode string

// The failure codes of an attempt.
const (
	FailureModelError   FailureCode = "MODEL_ERROR"
	FailureModelTimeout FailureCode = "MODEL_TIMEOUT"
	FailureRateLimited  FailureCode = "RATE_LIMITED"
	FailureCancelled    FailureCode = "CANCELLED"
	FailureInterrupted  FailureCode = "INTERRUPTED"
	FailureInternal     FailureCode = "INTERNAL"
)

// FeedbackReason is a stable reason code attached to feedback.
type FeedbackReason string

// The feedback reason codes.
const (
	ReasonInaccurate    FeedbackReason = "INACCURATE"
	ReasonIncomplete    FeedbackReason = "INCOMPLETE"
	ReasonIrrelevant    FeedbackReason = "IRRELEVANT"
	ReasonOutdated      FeedbackReason = "OUTDATED"
	ReasonUnsafe        FeedbackReason = "UNSAFE"
	ReasonCitationWrong FeedbackReason = "CITATION_WRONG"
	ReasonHelpful       FeedbackReason = "HELPFUL"
	ReasonOther         FeedbackReason = "OTHER"
)

// FeedbackReasons lists every valid reason code.
var FeedbackReasons = []FeedbackReason{
	ReasonInaccurate, ReasonIncomplete, ReasonIrrelevant, ReasonOutdated,
	ReasonUnsafe, ReasonCitationWrong, ReasonHelpful, ReasonOther,
}

// Valid reports whether r is a known reason code.
func (r FeedbackReason) Valid() bool {
	for _, x := range FeedbackReasons {
		if x == r {
			return true
		}
	}
	return false
}

// RefusalReason says why an attempt was refused without a model answer.
const (
	RefusalNoEvidence = "NO_AUTHORIZED_EVIDENCE"
)

// EmbeddingDimensions is the width of the chunk embedding column. Models
// with fewer dimensions are zero-padded (cosine distance is unchanged);
// models with more are asked for this many (Matryoshka "dimensions").
const EmbeddingDimensions = 1024
