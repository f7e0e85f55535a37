package domain

import "time"

// SummaryStrategy selects how a conversation's older rounds are folded into
// its rolling summary.
type SummaryStrategy string

// The summary strategies a tenant can choose.
const (
	// SummaryDeterministic records the user's intents and their outcome,
	// never copying assistant answer text. It is the default.
	SummaryDeterministic SummaryStrategy = "deterministic"
	// SummaryLLM asks the model to summarise the user's side and outcomes,
	// falling back to deterministic on failure.
	SummaryLLM SummaryStrategy = "llm"
	// SummaryFullBuffer keeps whole history rounds (oldest dropped first),
	// still bounded by the token budget, and writes no summary.
	SummaryFullBuffer SummaryStrategy = "full_buffer"
)

// Duration is a time.Duration that marshals to JSON as a Go duration string
// ("30m", "24h").
type Duration struct{ time.Duration }

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// TenantSettings is the per-tenant configuration stored on the tenant row.
// Zero fields fall back to DefaultTenantSettings via WithDefaults.
type TenantSettings struct {
	// ConversationIdleTTL is the sliding expiry: each valid interaction
	// extends expires_at to now + ConversationIdleTTL.
	ConversationIdleTTL Duration `json:"conversationIdleTTL"`
	// ConversationMaxAge caps a conversation's whole life
	// (absolute_expires_at = created_at + ConversationMaxAge).
	ConversationMaxAge Duration `json:"conversationMaxAge"`
	// RetentionDays is how long a DELETED conversation can be restored
	// before the purge job hard-deletes it.
	RetentionDays int `json:"retentionDays"`
	// AuditRetentionDays and FeedbackRetentionDays bound audit events and
	// feedback rows.
	AuditRetentionDays    int `json:"auditRetentionDays"`
	FeedbackRetentionDays int `json:"feedbackRetentionDays"`
	// HistoryRounds is how many whole recent rounds the prompt may carry.
	HistoryRounds int `json:"historyRounds"`
	// PromptTokenBudget is the total input budget of one answer prompt;
	// HistoryTokenBudget caps the summary and rounds inside it;
	// MaxAnswerTokens is reserved for the answer.
	PromptTokenBudget  int `json:"promptTokenBudget"`
	HistoryTokenBudget int `json:"historyTokenBudget"`
	MaxAnswerTokens    int `json:"maxAnswerTokens"`
	// RetrievalTopK and MinEvidenceScore control retrieval; below the score
	// (cosine similarity) a chunk is not evidence, and with no evidence the
	// answer is refused. MinEvidenceScore 0 means the engine's default for
	// its embedding model.
	RetrievalTopK    int     `json:"retrievalTopK"`
	MinEvidenceScore float64 `json:"minEvidenceScore"`
	// SummaryStrategy and its thresholds.
	SummaryStrategy         SummaryStrategy `json:"summaryStrategy"`
	SummaryTriggerRounds    int             `json:"summaryTriggerRounds"`
	SummaryMaxChars         int             `json:"summaryMaxChars"`
	SummaryMaxRegenerations int             `json:"summaryMaxRegenerations"`
	// DefaultModel names the chat model for this tenant ("" = server default).
	DefaultModel string `json:"defaultModel"`
	// AskRatePerMinute and AskBurst bound each user's asks.
	AskRatePerMinute float64 `json:"askRatePerMinute"`
	AskBurst         int     `json:"askBurst"`
}

// DefaultTenantSettings are the settings of a tenant that sets nothing.
func DefaultTenantSettings() TenantSettings {
	return TenantSettings{
		ConversationIdleTTL:     Duration{7 * 24 * time.Hour},
		ConversationMaxAge:      Duration{90 * 24 * time.Hour},
		RetentionDays:           30,
		AuditRetentionDays:      365,
		FeedbackRetentionDays:   365,
		HistoryRounds:           4,
		PromptTokenBudget:       6000,
		HistoryTokenBudget:      1500,
		MaxAnswerTokens:         800,
		RetrievalTopK:           5,
		SummaryStrategy:         SummaryDeterministic,
		SummaryTriggerRounds:    4,
		SummaryMaxChars:         1200,
		SummaryMaxRegenerations: 50,
		AskRatePerMinute:        30,
		AskBurst:                10,
	}
}

// WithDefaults returns s with every zero field replaced by its default.
func (s TenantSettings) WithDefaults() TenantSettings {
	d := DefaultTenantSettings()
	if s.ConversationIdleTTL.Duration <= 0 {
		s.ConversationIdleTTL = d.ConversationIdleTTL
	}
	if s.ConversationMaxAge.Duration <= 0 {
		s.ConversationMaxAge = d.ConversationMaxAge
	}
	setInt := func(p *int, def int) {
		if *p <= 0 {
			*p = def
		}
	}
	setInt(&s.RetentionDays, d.RetentionDays)
	setInt(&s.AuditRetentionDays, d.AuditRetentionDays)
	setInt(&s.FeedbackRetentionDays, d.FeedbackRetentionDays)
	setInt(&s.HistoryRounds, d.HistoryRounds)
	setInt(&s.PromptTokenBudget, d.PromptTokenBudget)
	setInt(&s.HistoryTokenBudget, d.HistoryTokenBudget)
	setInt(&s.MaxAnswerTokens, d.MaxAnswerTokens)
	setInt(&s.RetrievalTopK, d.RetrievalTopK)
	setInt(&s.SummaryTriggerRounds, d.SummaryTriggerRounds)
	setInt(&s.SummaryMaxChars, d.SummaryMaxChars)
	setInt(&s.SummaryMaxRegenerations, d.SummaryMaxRegenerations)
	setInt(&s.AskBurst, d.AskBurst)
	if s.AskRatePerMinute <= 0 {
		s.AskRatePerMinute = d.AskRatePerMinute
	}
	switch s.SummaryStrategy {
	case SummaryDeterministic, SummaryLLM, SummaryFullBuffer:
	default:
		s.SummaryStrategy = d.SummaryStrategy
	}
	return s
}
