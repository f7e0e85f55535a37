package llm

import (
	"regexp"
	"strings"
	"unicode"
)

// KeyEntities returns the key entities of text that a summary of it must
// keep (docs/ENGINE.md "Summarisers"): every token with a digit — error and
// status codes (E1001, 413), amounts (¥200 → 200, 3.5), IDs and order
// numbers (12345, ORD-2024-7), dates and times (2024-05-01, 10:30),
// versions — except lone single digits that are not amounts (¥5, 5元,
// 5%); Chinese dates (2024年5月1日, 5月1号), kept whole; identifiers with
// an underscore (ERR_FILE_TOO_LARGE); and e-mail addresses. Tokens are runs of ASCII
// letters, digits and _ . - : / @ # (full-width forms folded to ASCII,
// thousands separators removed), trimmed of trailing punctuation. The
// result keeps first-seen order without duplicates (compared
// case-insensitively).
func KeyEntities(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(tok string) {
		if k := strings.ToLower(tok); !seen[k] {
			seen[k] = true
			out = append(out, tok)
		}
	}
	norm := normalizeEntityText(text)
	for _, d := range zhDate.FindAllString(norm, -1) {
		add(d)
	}
	for _, re := range smallAmounts {
		for _, m := range re.FindAllStringSubmatch(norm, -1) {
			add(m[1])
		}
	}
	for _, tok := range entityTokens(norm) {
		if isKeyEntity(tok) {
			add(tok)
		}
	}
	return out
}

var (
	// zhDate matches Chinese dates ("2024年5月1日", "5月1日", "5月1号"),
	// kept whole.
	zhDate = regexp.MustCompile(`(?:\d{2,4}年)?\d{1,2}月\d{1,2}[日号]`)
	// smallAmounts match single-digit amounts ("¥5", "5元", "5%"), which
	// the token rule skips as lone digits; the digit is the entity.
	smallAmounts = []*regexp.Regexp{
		regexp.MustCompile(`[¥￥$€£]\s?(\d)(?:[^\d.]|$)`),
		regexp.MustCompile(`(?:^|[^\d.])(\d)(?:元|块|%)`),
	}
)

// MissingEntities returns the entities of want that summary does not
// contain, compared case-insensitively after the normalisation of
// KeyEntities.
func MissingEntities(summary string, want []string) []string {
	s := strings.ToLower(normalizeEntityText(summary))
	var missing []string
	for _, e := range want {
		if !strings.Contains(s, strings.ToLower(normalizeEntityText(e))) {
			missing = append(missing, e)
		}
	}
	return missing
}

// normalizeEntityText folds full-width ASCII forms to ASCII and removes
// thousands separators ("12,345" → "12345": an ASCII comma after one to
// three digits that do not follow a letter, digit or point, before exactly
// three digits).
func normalizeEntityText(s string) string {
	orig := []rune(s)
	rs := make([]rune, len(orig))
	for i, r := range orig {
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFEE0
		}
		rs[i] = r
	}
	var b strings.Builder
	for i, r := range rs {
		if orig[i] == ',' && thousandsSeparator(rs, i) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// thousandsSeparator reports whether the comma at rs[i] separates
// thousands.
func thousandsSeparator(rs []rune, i int) bool {
	j := i
	for j > 0 && isDigit(rs[j-1]) {
		j--
	}
	if n := i - j; n < 1 || n > 3 {
		return false
	}
	if j > 0 {
		p := rs[j-1]
		if p == '.' || p <= unicode.MaxASCII && unicode.IsLetter(p) {
			return false
		}
	}
	tail := rs[i+1:]
	if len(tail) < 3 || !isDigit(tail[0]) || !isDigit(tail[1]) || !isDigit(tail[2]) {
		return false
	}
	return len(tail) == 3 || !isDigit(tail[3])
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// entityRune reports whether r may be part of an entity token.
func entityRune(r rune) bool {
	if r > unicode.MaxASCII {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-:/@#", r)
}

// entityTokens splits s into runs of entity runes, trimmed of leading and
// trailing punctuation.
func entityTokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !entityRune(r) }) {
		if t := strings.Trim(f, ".-:/#"); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// isKeyEntity reports whether tok is worth keeping.
func isKeyEntity(tok string) bool {
	hasDigit := strings.IndexFunc(tok, unicode.IsDigit) >= 0
	switch {
	case hasDigit:
		return len(tok) >= 2
	case strings.Contains(tok, "_"):
		return len(tok) >= 3
	case strings.Contains(tok, "@"):
		at := strings.Index(tok, "@")
		return at > 0 && strings.Contains(tok[at:], ".")
	}
	return false
}
