package resolvers

import (
	"context"
	"sort"
	"time"

	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

// TenantSettings is the tenant settings service (*tenantsettings.Service),
// which decides who may read and change them (admins only).
type TenantSettings interface {
	Get(ctx context.Context) (tenantsettings.State, error)
	Update(ctx context.Context, patch tenantsettings.Patch, expectedVersion *int) (tenantsettings.State, error)
	ForViewer(ctx context.Context) (tenantsettings.ViewerPolicy, error)
}

var _ TenantSettings = (*tenantsettings.Service)(nil)

// tenantSettingsModel is the GraphQL form of a tenant's settings.
func tenantSettingsModel(st tenantsettings.State) *model.TenantSettings {
	s := st.Settings
	windows := make([]*model.ModelContextWindow, 0, len(s.ModelContextWindows))
	for m, w := range s.ModelContextWindows {
		windows = append(windows, &model.ModelContextWindow{Model: m, ContextWindow: w})
	}
	sort.Slice(windows, func(i, j int) bool { return windows[i].Model < windows[j].Model })
	allowed := append([]string{}, s.AllowedModels...)
	r := s.BudgetRatios
	return &model.TenantSettings{
		Version:               st.Version,
		UpdatedAt:             st.UpdatedAt,
		ConversationIdleTTL:   s.ConversationIdleTTL.String(),
		ConversationMaxAge:    s.ConversationMaxAge.String(),
		RetentionDays:         s.RetentionDays,
		AuditRetentionDays:    s.AuditRetentionDays,
		FeedbackRetentionDays: s.FeedbackRetentionDays,
		HistoryStrategy:       string(s.HistoryStrategy),
		HistoryRounds:         s.HistoryRounds,
		PrioritizedCandidates: s.PrioritizedCandidates,
		PromptTokenBudget:     s.PromptTokenBudget,
		MaxAnswerTokens:       s.MaxAnswerTokens,
		BudgetRatios: &model.BudgetRatios{
			System: r.System, Evidence: r.Evidence, History: r.History, Input: r.Input,
			EvidenceFloor: r.EvidenceFloor, EvidenceCap: r.EvidenceCap,
		},
		ModelContextWindows:               windows,
		RetrievalTopK:                     s.RetrievalTopK,
		MinEvidenceScore:                  s.MinEvidenceScore,
		Summarizer:                        string(s.Summarizer),
		SummaryTriggerRounds:              s.SummaryTriggerRounds,
		SummaryMaxChars:                   s.SummaryMaxChars,
		SummaryChunkTokens:                s.SummaryChunkTokens,
		SummaryMaxRegenerations:           s.SummaryMaxRegenerations,
		DefaultModel:                      s.DefaultModel,
		AllowedModels:                     allowed,
		AskRatePerMinute:                  s.AskRatePerMinute,
		AskBurst:                          s.AskBurst,
		SupportApproval:                   string(s.SupportApproval),
		SupportGrantDefault:               s.SupportGrantDefault.String(),
		SupportGrantMax:                   s.SupportGrantMax.String(),
		TemporaryChats:                    string(s.TemporaryChats),
		TemporaryChatRetention:            s.TemporaryChatRetention.String(),
		PublicShareLinks:                  s.PublicShareLinks,
		PublicShareSources:                s.PublicShareSources,
		TokenQuotaPeriod:                  s.Quota().WithDefaults().Period,
		TokenQuotaKind:                    s.Quota().WithDefaults().Kind,
		TokenQuotaTenantTokens:            int(s.TokenQuotaTenantTokens),
		TokenQuotaUserTokens:              int(s.TokenQuotaUserTokens),
		AttachmentMaxFileBytes:            int(s.Attachments().Effective().MaxFileBytes),
		AttachmentMaxFilesPerConversation: s.Attachments().Effective().MaxFilesPerConversation,
		AttachmentMaxBytesPerUser:         int(s.Attachments().Effective().MaxBytesPerUser),
	}
}

// tenantSettingsPatch parses the input: durations as Go duration strings,
// enumerations as their names (validated by the service), the context
// windows as a map. A malformed duration or a model named twice is
// BAD_USER_INPUT naming the field.
func tenantSettingsPatch(in model.UpdateTenantSettingsInput) (tenantsettings.Patch, error) {
	p := tenantsettings.Patch{
		RetentionDays:                     in.RetentionDays,
		AuditRetentionDays:                in.AuditRetentionDays,
		FeedbackRetentionDays:             in.FeedbackRetentionDays,
		HistoryStrategy:                   (*domain.HistoryStrategy)(in.HistoryStrategy),
		HistoryRounds:                     in.HistoryRounds,
		PrioritizedCandidates:             in.PrioritizedCandidates,
		PromptTokenBudget:                 in.PromptTokenBudget,
		MaxAnswerTokens:                   in.MaxAnswerTokens,
		RetrievalTopK:                     in.RetrievalTopK,
		MinEvidenceScore:                  in.MinEvidenceScore,
		Summarizer:                        (*domain.Summarizer)(in.Summarizer),
		SummaryTriggerRounds:              in.SummaryTriggerRounds,
		SummaryMaxChars:                   in.SummaryMaxChars,
		SummaryChunkTokens:                in.SummaryChunkTokens,
		SummaryMaxRegenerations:           in.SummaryMaxRegenerations,
		DefaultModel:                      in.DefaultModel,
		AllowedModels:                     in.AllowedModels,
		AskRatePerMinute:                  in.AskRatePerMinute,
		AskBurst:                          in.AskBurst,
		SupportApproval:                   (*domain.SupportApproval)(in.SupportApproval),
		TemporaryChats:                    (*domain.TemporaryChats)(in.TemporaryChats),
		PublicShareLinks:                  in.PublicShareLinks,
		PublicShareSources:                in.PublicShareSources,
		TokenQuotaPeriod:                  in.TokenQuotaPeriod,
		TokenQuotaKind:                    in.TokenQuotaKind,
		TokenQuotaTenantTokens:            int64Ptr(in.TokenQuotaTenantTokens),
		TokenQuotaUserTokens:              int64Ptr(in.TokenQuotaUserTokens),
		AttachmentMaxFileBytes:            int64Ptr(in.AttachmentMaxFileBytes),
		AttachmentMaxFilesPerConversation: in.AttachmentMaxFilesPerConversation,
		AttachmentMaxBytesPerUser:         int64Ptr(in.AttachmentMaxBytesPerUser),
	}
	if in.AllowedModels != nil && p.AllowedModels == nil {
		p.AllowedModels = []string{}
	}
	var err error
	for _, d := range []struct {
		name string
		in   *string
		out  **time.Duration
	}{
		{"conversationIdleTTL", in.ConversationIdleTTL, &p.ConversationIdleTTL},
		{"conversationMaxAge", in.ConversationMaxAge, &p.ConversationMaxAge},
		{"supportGrantDefault", in.SupportGrantDefault, &p.SupportGrantDefault},
		{"supportGrantMax", in.SupportGrantMax, &p.SupportGrantMax},
		{"temporaryChatRetention", in.TemporaryChatRetention, &p.TemporaryChatRetention},
	} {
		if *d.out, err = parseDuration(d.name, d.in); err != nil {
			return p, err
		}
	}
	if b := in.BudgetRatios; b != nil {
		p.BudgetRatios = &tenantsettings.BudgetRatiosPatch{
			System: b.System, Evidence: b.Evidence, History: b.History, Input: b.Input,
			EvidenceFloor: b.EvidenceFloor, EvidenceCap: b.EvidenceCap,
		}
	}
	if in.ModelContextWindows != nil {
		p.ModelContextWindows = make(map[string]int, len(in.ModelContextWindows))
		for _, w := range in.ModelContextWindows {
			if _, dup := p.ModelContextWindows[w.Model]; dup {
				return p, badInput("modelContextWindows", "invalid tenant setting modelContextWindows: the model %q is listed twice", w.Model)
			}
			p.ModelContextWindows[w.Model] = w.ContextWindow
		}
	}
	return p, nil
}

// parseDuration parses a Go duration string ("24h", "90m").
func parseDuration(field string, s *string) (*time.Duration, error) {
	if s == nil {
		return nil, nil
	}
	d, err := time.ParseDuration(*s)
	if err != nil {
		return nil, badInput(field, "invalid tenant setting %s: %q is not a duration such as \"24h\" or \"90m\"", field, *s)
	}
	return &d, nil
}

// int64Ptr widens an optional GraphQL Int.
func int64Ptr(v *int) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}
