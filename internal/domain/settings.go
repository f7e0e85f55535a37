package domain

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/ragchat/ragchat/internal/defaults"
)

// HistoryStrategy selects which history reaches an answer prompt: the four
// strategies of the context-engineering article (docs/ENGINE.md D9).
type HistoryStrategy string

// The history strategies a tenant or a conversation can choose.
const (
	// StrategySlidingWindow keeps the last HistoryRounds whole rounds,
	// trimmed by the history budget, and no summary.
	StrategySlidingWindow HistoryStrategy = "SLIDING_WINDOW"
	// StrategySemanticSummary keeps only the rolling summary (plus the
	// current question); no verbatim rounds.
	StrategySemanticSummary HistoryStrategy = "SEMANTIC_SUMMARY"
	// StrategyHybrid keeps the last HistoryRounds rounds verbatim plus a
	// summary of everything older. It is the default.
	StrategyHybrid HistoryStrategy = "HYBRID"
	// StrategyPrioritized keeps the rounds most important to the current
	// question (not the most recent), always with the previous round.
	StrategyPrioritized HistoryStrategy = "PRIORITIZED"
)

// HistoryStrategies lists every strategy, in documentation order.
var HistoryStrategies = []HistoryStrategy{StrategySlidingWindow, StrategySemanticSummary, StrategyHybrid, StrategyPrioritized}

// Valid reports whether s is one of HistoryStrategies.
func (s HistoryStrategy) Valid() bool {
	for _, k := range HistoryStrategies {
		if s == k {
			return true
		}
	}
	return false
}

// UsesSummary reports whether the strategy carries the rolling summary.
func (s HistoryStrategy) UsesSummary() bool {
	return s == StrategySemanticSummary || s == StrategyHybrid || s == StrategyPrioritized
}

// StrategyFor returns the history strategy that builds the prompts of a
// conversation whose own choice is own (nil: none) under these settings
// (docs/ENGINE.md, "History strategies"): the conversation's choice when
// it has one, else the tenant's. Settings are validated before they are
// stored; a value that is somehow unknown falls back to the default rather
// than to another strategy.
func (st TenantSettings) StrategyFor(own *HistoryStrategy) HistoryStrategy {
	if own != nil && own.Valid() {
		return *own
	}
	if st.HistoryStrategy.Valid() {
		return st.HistoryStrategy
	}
	return DefaultTenantSettings().HistoryStrategy
}

// Summarizer selects what writes the rolling summary; it is independent of
// the history strategy.
type Summarizer string

// The summarisers a tenant can choose.
const (
	// SummarizerDeterministic records the user's statements and each
	// question's outcome, never copying assistant answer text. It is the
	// default.
	SummarizerDeterministic Summarizer = "DETERMINISTIC"
	// SummarizerLLM asks the chat model, with entity checks, retries and a
	// deterministic fallback.
	SummarizerLLM Summarizer = "LLM"
)

// Valid reports whether s is a known summariser.
func (s Summarizer) Valid() bool { return s == SummarizerDeterministic || s == SummarizerLLM }

// SupportApproval says who approves a support agent's request to read a
// conversation (docs/ENGINE.md D13).
type SupportApproval string

// The support approval policies.
const (
	// SupportApprovalOwner: the conversation's owner approves. Default.
	SupportApprovalOwner SupportApproval = "OWNER"
	// SupportApprovalOwnerOrAdmin: the owner or a tenant admin approves.
	SupportApprovalOwnerOrAdmin SupportApproval = "OWNER_OR_ADMIN"
	// SupportApprovalAuto: requests are approved when made.
	SupportApprovalAuto SupportApproval = "AUTO"
)

// Valid reports whether a is a known policy.
func (a SupportApproval) Valid() bool {
	return a == SupportApprovalOwner || a == SupportApprovalOwnerOrAdmin || a == SupportApprovalAuto
}

// TemporaryChats says whether the tenant's users may start temporary chats
// (docs/API.md, "Temporary chats").
type TemporaryChats string

// The temporary chat policies.
const (
	// TemporaryChatsAllowed: a conversation is temporary when asked for.
	// Default.
	TemporaryChatsAllowed TemporaryChats = "ALLOWED"
	// TemporaryChatsForbidden: asking for a temporary conversation is
	// refused (FORBIDDEN).
	TemporaryChatsForbidden TemporaryChats = "FORBIDDEN"
	// TemporaryChatsEnforced: every new conversation is temporary, and
	// none can be kept.
	TemporaryChatsEnforced TemporaryChats = "ENFORCED"
)

// Valid reports whether t is a known policy.
func (t TemporaryChats) Valid() bool {
	return t == TemporaryChatsAllowed || t == TemporaryChatsForbidden || t == TemporaryChatsEnforced
}

// The bounds of TenantSettings.TemporaryChatRetention.
const (
	MinTemporaryChatRetention = 5 * time.Minute
	MaxTemporaryChatRetention = 30 * 24 * time.Hour
)

// BudgetRatios split a model's usable window (its context window minus the
// answer reserve, capped by PromptTokenBudget) between the prompt's
// sections. Defaults are derived from the article's 15/10/55/20 split
// (docs/ENGINE.md D7 and "The budget split").
type BudgetRatios struct {
	// System is the share of the rules (the article's system prompt and
	// template instructions).
	System float64 `json:"system"`
	// Evidence is the share of the authorised knowledge.
	Evidence float64 `json:"evidence"`
	// History is the share of the summary and the recent rounds.
	History float64 `json:"history"`
	// Input is the share of the current question.
	Input float64 `json:"input"`
	// EvidenceFloor and EvidenceCap bound what evidence may use after
	// unused shares have flowed: never less than the floor while evidence
	// is available, never more than the cap, so that neither evidence nor
	// history can starve the other.
	EvidenceFloor float64 `json:"evidenceFloor"`
	EvidenceCap   float64 `json:"evidenceCap"`
}

// DefaultBudgetRatios returns the documented default split.
func DefaultBudgetRatios() BudgetRatios {
	return BudgetRatios{System: 0.15, Evidence: 0.30, History: 0.35, Input: 0.20, EvidenceFloor: 0.15, EvidenceCap: 0.60}
}

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

	// HistoryStrategy is the tenant's default history strategy; a
	// conversation may choose its own.
	HistoryStrategy HistoryStrategy `json:"historyStrategy"`
	// HistoryRounds is N of SLIDING_WINDOW and K of HYBRID: how many whole
	// recent rounds the prompt may carry (the article recommends 5–8).
	HistoryRounds int `json:"historyRounds"`
	// PrioritizedCandidates is how many recent rounds PRIORITIZED scores.
	PrioritizedCandidates int `json:"prioritizedCandidates"`
	// PromptTokenBudget caps the usable window below the model's (a cost
	// cap); MaxAnswerTokens is reserved for the answer.
	PromptTokenBudget int `json:"promptTokenBudget"`
	MaxAnswerTokens   int `json:"maxAnswerTokens"`
	// BudgetRatios split the usable window between the sections.
	BudgetRatios BudgetRatios `json:"budgetRatios"`
	// ModelContextWindows overrides the model registry's context window
	// per model name (tokens).
	ModelContextWindows map[string]int `json:"modelContextWindows,omitempty"`

	// RetrievalTopK and MinEvidenceScore control retrieval; below the score
	// (cosine similarity) a chunk is not evidence, and with no evidence the
	// answer is refused. MinEvidenceScore 0 means the engine's default for
	// its embedding model.
	RetrievalTopK    int     `json:"retrievalTopK"`
	MinEvidenceScore float64 `json:"minEvidenceScore"`

	// Summarizer writes the rolling summary; the thresholds bound it.
	Summarizer              Summarizer `json:"summarizer"`
	SummaryTriggerRounds    int        `json:"summaryTriggerRounds"`
	SummaryMaxChars         int        `json:"summaryMaxChars"`
	SummaryChunkTokens      int        `json:"summaryChunkTokens"`
	SummaryMaxRegenerations int        `json:"summaryMaxRegenerations"`

	// DefaultModel names the chat model for this tenant ("" = server
	// default); AllowedModels, when not empty, lists the only models the
	// tenant may use.
	DefaultModel  string   `json:"defaultModel"`
	AllowedModels []string `json:"allowedModels,omitempty"`

	// AskRatePerMinute and AskBurst bound each user's asks.
	AskRatePerMinute float64 `json:"askRatePerMinute"`
	AskBurst         int     `json:"askBurst"`

	// SupportApproval says who approves support access requests;
	// SupportGrantDefault and SupportGrantMax bound a grant's life.
	SupportApproval     SupportApproval `json:"supportApproval"`
	SupportGrantDefault Duration        `json:"supportGrantDefault"`
	SupportGrantMax     Duration        `json:"supportGrantMax"`

	// TemporaryChats allows, forbids or enforces temporary chats;
	// TemporaryChatRetention is how long one lasts from its creation.
	TemporaryChats         TemporaryChats `json:"temporaryChats"`
	TemporaryChatRetention Duration       `json:"temporaryChatRetention"`

	// PublicShareLinks allows share links readable by anyone with the
	// token (audience PUBLIC); PublicShareSources shows such readers the
	// sources of documents visible to the whole tenant. Both are off by
	// default (docs/API.md, "Share links").
	PublicShareLinks   bool `json:"publicShareLinks"`
	PublicShareSources bool `json:"publicShareSources"`

	// The attachment limits bound conversation attachments (a file's
	// bytes, files per conversation, a user's bytes; 0 is the default;
	// Attachments returns them as one value, attachlimits.go).
	AttachmentMaxFileBytes            int64 `json:"attachmentMaxFileBytes,omitempty"`
	AttachmentMaxFilesPerConversation int   `json:"attachmentMaxFilesPerConversation,omitempty"`
	AttachmentMaxBytesPerUser         int64 `json:"attachmentMaxBytesPerUser,omitempty"`
	// The token quota bounds the tokens of the tenant's model calls per
	// period (internal/quota; docs/API.md, "Quotas and usage"); Quota
	// returns it as one value.
	TokenQuotaPeriod       string `json:"tokenQuotaPeriod,omitempty"`
	TokenQuotaKind         string `json:"tokenQuotaKind,omitempty"`
	TokenQuotaTenantTokens int64  `json:"tokenQuotaTenantTokens,omitempty"`
	TokenQuotaUserTokens   int64  `json:"tokenQuotaUserTokens,omitempty"`
}

// Quota returns the tenant's token quota.
func (s TenantSettings) Quota() TokenQuota {
	return TokenQuota{Period: s.TokenQuotaPeriod, Kind: s.TokenQuotaKind, TenantTokens: s.TokenQuotaTenantTokens, UserTokens: s.TokenQuotaUserTokens}
}

// TokenQuota is a tenant's token quota: per period (DAILY or MONTHLY, UTC),
// HARD (an ask that would pass it is QUOTA_EXCEEDED) or SOFT (allowed and
// flagged), with a limit for the whole tenant and one for each of its
// users; a limit of 0 is no limit.
type TokenQuota struct {
	Period       string
	Kind         string
	TenantTokens int64
	UserTokens   int64
}

// The quota periods and kinds.
const (
	QuotaDaily   = "DAILY"
	QuotaMonthly = "MONTHLY"
	QuotaHard    = "HARD"
	QuotaSoft    = "SOFT"
)

// Enabled reports whether the quota limits anything.
func (q TokenQuota) Enabled() bool { return q.TenantTokens > 0 || q.UserTokens > 0 }

// WithDefaults fills the period (DAILY) and the kind (HARD).
func (q TokenQuota) WithDefaults() TokenQuota {
	q.Period = cmp.Or(q.Period, QuotaDaily)
	q.Kind = cmp.Or(q.Kind, QuotaHard)
	return q
}

// legacySettings are the fields of settings stored before the four history
// strategies: summaryStrategy was deterministic | llm | full_buffer and
// historyTokenBudget capped history in tokens.
type legacySettings struct {
	SummaryStrategy string `json:"summaryStrategy"`
}

// UnmarshalJSON reads stored settings, mapping the legacy summaryStrategy
// onto HistoryStrategy and Summarizer when they are not set.
func (s *TenantSettings) UnmarshalJSON(b []byte) error {
	type plain TenantSettings
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var l legacySettings
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	switch l.SummaryStrategy {
	case "llm":
		p.Summarizer = cmp.Or(p.Summarizer, SummarizerLLM)
	case "full_buffer":
		p.HistoryStrategy = cmp.Or(p.HistoryStrategy, StrategySlidingWindow)
	}
	*s = TenantSettings(p)
	return nil
}

// DefaultTenantSettings are the settings of a tenant that sets nothing.
func DefaultTenantSettings() TenantSettings {
	return TenantSettings{
		ConversationIdleTTL:     Duration{7 * 24 * time.Hour},
		ConversationMaxAge:      Duration{90 * 24 * time.Hour},
		RetentionDays:           30,
		AuditRetentionDays:      365,
		FeedbackRetentionDays:   365,
		HistoryStrategy:         StrategyHybrid,
		HistoryRounds:           5,
		PrioritizedCandidates:   20,
		PromptTokenBudget:       6000,
		MaxAnswerTokens:         800,
		BudgetRatios:            DefaultBudgetRatios(),
		RetrievalTopK:           5,
		Summarizer:              SummarizerDeterministic,
		SummaryTriggerRounds:    4,
		SummaryMaxChars:         1200,
		SummaryChunkTokens:      6000,
		SummaryMaxRegenerations: 20,
		AskRatePerMinute:        30,
		AskBurst:                10,
		SupportApproval:         SupportApprovalOwner,
		SupportGrantDefault:     Duration{24 * time.Hour},
		SupportGrantMax:         Duration{7 * 24 * time.Hour},
		TemporaryChats:          TemporaryChatsAllowed,
		TemporaryChatRetention:  Duration{24 * time.Hour},
	}
}

// WithDefaults returns s with every zero field replaced by its default.
// Unknown enum values are not repaired here: Validate refuses them before
// they are stored.
func (s TenantSettings) WithDefaults() TenantSettings {
	d := DefaultTenantSettings()
	setDur := func(p *Duration, def Duration) {
		if p.Duration <= 0 {
			*p = def
		}
	}
	setDur(&s.ConversationIdleTTL, d.ConversationIdleTTL)
	setDur(&s.ConversationMaxAge, d.ConversationMaxAge)
	setDur(&s.SupportGrantDefault, d.SupportGrantDefault)
	setDur(&s.SupportGrantMax, d.SupportGrantMax)
	setDur(&s.TemporaryChatRetention, d.TemporaryChatRetention)
	setInt := func(p *int, def int) {
		if *p <= 0 {
			*p = def
		}
	}
	setInt(&s.RetentionDays, d.RetentionDays)
	setInt(&s.AuditRetentionDays, d.AuditRetentionDays)
	setInt(&s.FeedbackRetentionDays, d.FeedbackRetentionDays)
	setInt(&s.HistoryRounds, d.HistoryRounds)
	setInt(&s.PrioritizedCandidates, d.PrioritizedCandidates)
	setInt(&s.PromptTokenBudget, d.PromptTokenBudget)
	setInt(&s.MaxAnswerTokens, d.MaxAnswerTokens)
	setInt(&s.RetrievalTopK, d.RetrievalTopK)
	setInt(&s.SummaryTriggerRounds, d.SummaryTriggerRounds)
	setInt(&s.SummaryMaxChars, d.SummaryMaxChars)
	setInt(&s.SummaryChunkTokens, d.SummaryChunkTokens)
	setInt(&s.SummaryMaxRegenerations, d.SummaryMaxRegenerations)
	setInt(&s.AskBurst, d.AskBurst)
	s.AskRatePerMinute = defaults.Positive(s.AskRatePerMinute, d.AskRatePerMinute)
	s.HistoryStrategy = cmp.Or(s.HistoryStrategy, d.HistoryStrategy)
	s.Summarizer = cmp.Or(s.Summarizer, d.Summarizer)
	s.SupportApproval = cmp.Or(s.SupportApproval, d.SupportApproval)
	s.TemporaryChats = cmp.Or(s.TemporaryChats, d.TemporaryChats)
	if s.BudgetRatios == (BudgetRatios{}) {
		s.BudgetRatios = d.BudgetRatios
	}
	return s
}

// Validate checks s with its defaults filled in (WithDefaults, so that
// zero fields, which mean "the default", pass): known enum values, ratios
// in range and summing to at most 1, positive bounds. The error is a
// *Error with code BAD_USER_INPUT and the field in its details. Ent calls
// it on every write of the tenant's settings column, so stored settings
// are always valid.
func (s TenantSettings) Validate() error {
	s = s.WithDefaults()
	bad := func(field, format string, args ...any) error {
		return Errorf(CodeBadUserInput, "invalid tenant setting %s: %s", field, fmt.Sprintf(format, args...)).With("field", field)
	}
	if !s.HistoryStrategy.Valid() {
		return bad("historyStrategy", "unknown strategy %q (want one of %v)", s.HistoryStrategy, HistoryStrategies)
	}
	if q := s.Quota(); q.Period != "" && q.Period != QuotaDaily && q.Period != QuotaMonthly {
		return bad("tokenQuotaPeriod", "unknown period %q (want DAILY or MONTHLY)", q.Period)
	}
	if q := s.Quota(); q.Kind != "" && q.Kind != QuotaHard && q.Kind != QuotaSoft {
		return bad("tokenQuotaKind", "unknown kind %q (want HARD or SOFT)", q.Kind)
	}
	if q := s.Quota(); q.TenantTokens < 0 || q.UserTokens < 0 {
		return bad("tokenQuota", "a limit is negative")
	}
	for _, l := range []struct {
		field string
		v     int64
	}{{"attachmentMaxFileBytes", s.AttachmentMaxFileBytes}, {"attachmentMaxFilesPerConversation", int64(s.AttachmentMaxFilesPerConversation)}, {"attachmentMaxBytesPerUser", s.AttachmentMaxBytesPerUser}} {
		if l.v < 0 {
			return bad(l.field, "a limit is negative (0 is the default)")
		}
	}
	if !s.Summarizer.Valid() {
		return bad("summarizer", "unknown summarizer %q (want DETERMINISTIC or LLM)", s.Summarizer)
	}
	if !s.SupportApproval.Valid() {
		return bad("supportApproval", "unknown policy %q (want OWNER, OWNER_OR_ADMIN or AUTO)", s.SupportApproval)
	}
	if !s.TemporaryChats.Valid() {
		return bad("temporaryChats", "unknown policy %q (want ALLOWED, FORBIDDEN or ENFORCED)", s.TemporaryChats)
	}
	if r := s.TemporaryChatRetention.Duration; r < MinTemporaryChatRetention || r > MaxTemporaryChatRetention {
		return bad("temporaryChatRetention", "%v is outside %v..%v", r, MinTemporaryChatRetention, MaxTemporaryChatRetention)
	}
	r := s.BudgetRatios
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"budgetRatios.system", r.System}, {"budgetRatios.evidence", r.Evidence},
		{"budgetRatios.history", r.History}, {"budgetRatios.input", r.Input},
		{"budgetRatios.evidenceFloor", r.EvidenceFloor}, {"budgetRatios.evidenceCap", r.EvidenceCap},
	} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return bad(f.name, "%v is outside 0..1", f.v)
		}
	}
	if sum := r.System + r.Evidence + r.History + r.Input; sum > 1.0001 {
		return bad("budgetRatios", "the section ratios sum to %.3f, more than 1", sum)
	}
	if r.EvidenceFloor > r.EvidenceCap {
		return bad("budgetRatios.evidenceFloor", "floor %v is above the cap %v", r.EvidenceFloor, r.EvidenceCap)
	}
	if s.HistoryRounds > 50 {
		return bad("historyRounds", "%d is more than 50", s.HistoryRounds)
	}
	if s.PrioritizedCandidates > 200 {
		return bad("prioritizedCandidates", "%d is more than 200", s.PrioritizedCandidates)
	}
	if s.SummaryChunkTokens < 100 || s.SummaryChunkTokens > 100_000 {
		return bad("summaryChunkTokens", "%d is outside 100..100000", s.SummaryChunkTokens)
	}
	if s.SummaryMaxRegenerations > 1000 {
		return bad("summaryMaxRegenerations", "%d is more than 1000", s.SummaryMaxRegenerations)
	}
	if s.MinEvidenceScore < 0 || s.MinEvidenceScore > 1 {
		return bad("minEvidenceScore", "%v is outside 0..1", s.MinEvidenceScore)
	}
	if s.SupportGrantDefault.Duration > s.SupportGrantMax.Duration {
		return bad("supportGrantDefault", "%v is longer than supportGrantMax %v", s.SupportGrantDefault.Duration, s.SupportGrantMax.Duration)
	}
	for m, w := range s.ModelContextWindows {
		if w < 256 {
			return bad("modelContextWindows", "window of %q is %d tokens, fewer than 256", m, w)
		}
	}
	return nil
}
