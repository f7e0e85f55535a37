package tenantsettings

import (
	"math"
	"strings"
	"time"

	"github.com/ragchat/ragchat/internal/domain"
)

// Patch is a partial update of domain.TenantSettings: a nil
// field stays as it is. Field names in errors are the JSON (and GraphQL)
// names of domain.TenantSettings. A given list or map replaces the stored
// one (empty clears it). DefaultModel "" returns to the server's model.
type Patch struct {
	ConversationIdleTTL   *time.Duration
	ConversationMaxAge    *time.Duration
	RetentionDays         *int
	AuditRetentionDays    *int
	FeedbackRetentionDays *int

	HistoryStrategy       *domain.HistoryStrategy
	HistoryRounds         *int
	PrioritizedCandidates *int
	PromptTokenBudget     *int
	MaxAnswerTokens       *int
	BudgetRatios          *BudgetRatiosPatch
	ModelContextWindows   map[string]int // nil: unchanged

	RetrievalTopK    *int
	MinEvidenceScore *float64

	Summarizer              *domain.Summarizer
	SummaryTriggerRounds    *int
	SummaryMaxChars         *int
	SummaryChunkTokens      *int
	SummaryMaxRegenerations *int

	DefaultModel  *string
	AllowedModels []string // nil: unchanged

	AskRatePerMinute *float64
	AskBurst         *int

	SupportApproval     *domain.SupportApproval
	SupportGrantDefault *time.Duration
	SupportGrantMax     *time.Duration

	TemporaryChats         *domain.TemporaryChats
	TemporaryChatRetention *time.Duration

	PublicShareLinks   *bool
	PublicShareSources *bool

	TokenQuotaPeriod                  *string
	TokenQuotaKind                    *string
	TokenQuotaTenantTokens            *int64
	TokenQuotaUserTokens              *int64
	AttachmentMaxFileBytes            *int64
	AttachmentMaxFilesPerConversation *int
	AttachmentMaxBytesPerUser         *int64
}

// BudgetRatiosPatch is a partial update of domain.BudgetRatios.
type BudgetRatiosPatch struct {
	System, Evidence, History, Input, EvidenceFloor, EvidenceCap *float64
}

// badSetting is the BAD_USER_INPUT of one setting, in the shape of
// domain.TenantSettings.Validate.
func badSetting(field, why string) error {
	return domain.Errorf(domain.CodeBadUserInput, "invalid tenant setting %s: %s", field, why).With("field", field)
}

// check refuses values that defaults would otherwise silently replace
// (zero or negative counts and durations) and malformed names, before
// anything is applied; domain.TenantSettings.Validate checks the rest.
func (p Patch) check() error {
	for _, d := range []struct {
		name string
		v    *time.Duration
	}{
		{"conversationIdleTTL", p.ConversationIdleTTL}, {"conversationMaxAge", p.ConversationMaxAge},
		{"supportGrantDefault", p.SupportGrantDefault}, {"supportGrantMax", p.SupportGrantMax},
		{"temporaryChatRetention", p.TemporaryChatRetention},
	} {
		if d.v != nil && *d.v <= 0 {
			return badSetting(d.name, "must be a positive duration")
		}
	}
	for _, n := range []struct {
		name string
		v    *int
	}{
		{"retentionDays", p.RetentionDays}, {"auditRetentionDays", p.AuditRetentionDays},
		{"feedbackRetentionDays", p.FeedbackRetentionDays}, {"historyRounds", p.HistoryRounds},
		{"prioritizedCandidates", p.PrioritizedCandidates}, {"promptTokenBudget", p.PromptTokenBudget},
		{"maxAnswerTokens", p.MaxAnswerTokens}, {"retrievalTopK", p.RetrievalTopK},
		{"summaryTriggerRounds", p.SummaryTriggerRounds}, {"summaryMaxChars", p.SummaryMaxChars},
		{"summaryChunkTokens", p.SummaryChunkTokens}, {"summaryMaxRegenerations", p.SummaryMaxRegenerations},
		{"askBurst", p.AskBurst},
	} {
		if n.v != nil && *n.v < 1 {
			return badSetting(n.name, "must be at least 1")
		}
	}
	if p.AskRatePerMinute != nil && (math.IsNaN(*p.AskRatePerMinute) || math.IsInf(*p.AskRatePerMinute, 0) || *p.AskRatePerMinute <= 0) {
		return badSetting("askRatePerMinute", "must be a positive number")
	}
	if p.MinEvidenceScore != nil && math.IsNaN(*p.MinEvidenceScore) {
		return badSetting("minEvidenceScore", "is not a number")
	}
	for _, m := range p.AllowedModels {
		if strings.TrimSpace(m) == "" || len(m) > 128 {
			return badSetting("allowedModels", "a model name is empty or longer than 128 bytes")
		}
	}
	if p.DefaultModel != nil && len(*p.DefaultModel) > 128 {
		return badSetting("defaultModel", "is longer than 128 bytes")
	}
	for m := range p.ModelContextWindows {
		if strings.TrimSpace(m) == "" || len(m) > 128 {
			return badSetting("modelContextWindows", "a model name is empty or longer than 128 bytes")
		}
	}
	return nil
}

// apply returns s with the patch's fields set.
func (p Patch) apply(s domain.TenantSettings) domain.TenantSettings {
	setDur := func(dst *domain.Duration, v *time.Duration) {
		if v != nil {
			dst.Duration = *v
		}
	}
	setDur(&s.ConversationIdleTTL, p.ConversationIdleTTL)
	setDur(&s.ConversationMaxAge, p.ConversationMaxAge)
	setDur(&s.SupportGrantDefault, p.SupportGrantDefault)
	setDur(&s.SupportGrantMax, p.SupportGrantMax)
	setDur(&s.TemporaryChatRetention, p.TemporaryChatRetention)
	set(&s.RetentionDays, p.RetentionDays)
	set(&s.AuditRetentionDays, p.AuditRetentionDays)
	set(&s.FeedbackRetentionDays, p.FeedbackRetentionDays)
	set(&s.HistoryStrategy, p.HistoryStrategy)
	set(&s.HistoryRounds, p.HistoryRounds)
	set(&s.PrioritizedCandidates, p.PrioritizedCandidates)
	set(&s.PromptTokenBudget, p.PromptTokenBudget)
	set(&s.MaxAnswerTokens, p.MaxAnswerTokens)
	if r := p.BudgetRatios; r != nil {
		set(&s.BudgetRatios.System, r.System)
		set(&s.BudgetRatios.Evidence, r.Evidence)
		set(&s.BudgetRatios.History, r.History)
		set(&s.BudgetRatios.Input, r.Input)
		set(&s.BudgetRatios.EvidenceFloor, r.EvidenceFloor)
		set(&s.BudgetRatios.EvidenceCap, r.EvidenceCap)
	}
	if p.ModelContextWindows != nil {
		s.ModelContextWindows = nil
		if len(p.ModelContextWindows) > 0 {
			s.ModelContextWindows = make(map[string]int, len(p.ModelContextWindows))
			for m, w := range p.ModelContextWindows {
				s.ModelContextWindows[m] = w
			}
		}
	}
	set(&s.RetrievalTopK, p.RetrievalTopK)
	set(&s.MinEvidenceScore, p.MinEvidenceScore)
	set(&s.Summarizer, p.Summarizer)
	set(&s.SummaryTriggerRounds, p.SummaryTriggerRounds)
	set(&s.SummaryMaxChars, p.SummaryMaxChars)
	set(&s.SummaryChunkTokens, p.SummaryChunkTokens)
	set(&s.SummaryMaxRegenerations, p.SummaryMaxRegenerations)
	set(&s.DefaultModel, p.DefaultModel)
	if p.AllowedModels != nil {
		s.AllowedModels = nil
		if len(p.AllowedModels) > 0 {
			s.AllowedModels = append([]string(nil), p.AllowedModels...)
		}
	}
	set(&s.AskRatePerMinute, p.AskRatePerMinute)
	set(&s.AskBurst, p.AskBurst)
	set(&s.SupportApproval, p.SupportApproval)
	set(&s.TemporaryChats, p.TemporaryChats)
	set(&s.PublicShareLinks, p.PublicShareLinks)
	set(&s.PublicShareSources, p.PublicShareSources)
	set(&s.TokenQuotaPeriod, p.TokenQuotaPeriod)
	set(&s.TokenQuotaKind, p.TokenQuotaKind)
	set(&s.TokenQuotaTenantTokens, p.TokenQuotaTenantTokens)
	set(&s.TokenQuotaUserTokens, p.TokenQuotaUserTokens)
	set(&s.AttachmentMaxFileBytes, p.AttachmentMaxFileBytes)
	set(&s.AttachmentMaxFilesPerConversation, p.AttachmentMaxFilesPerConversation)
	set(&s.AttachmentMaxBytesPerUser, p.AttachmentMaxBytesPerUser)
	return s
}

// set stores *v in *dst when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
