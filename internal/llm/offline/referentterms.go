package offline

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// followUp is what a follow-up mentions, as features (features.go): the
// terms of the noun it points back with (第四台设备 → 台设, 设备; "the fourth
// device" → devic), and its other subject terms.
type followUp struct {
	pointing, other []string
}

var (
	// zhOrdinalNumber matches the number of an ordinal (第四 of 第四台): it
	// points into a list and names no subject; the measure word after it
	// stays with its noun (台设备 ↔ 几台设备).
	zhOrdinalNumber = regexp.MustCompile(`第[一二三四五六七八九十百两\d]+`)
	// zhPointers point back at a noun that follows them.
	zhPointers = []string{
		"刚才提到的", "刚才说的", "上面提到的", "上面说的", "前面提到的", "之前提到的",
		"这个", "那个", "这些", "那些", "这种", "那种",
	}
	// zhReferenceWords are removed before a follow-up's subject terms are
	// taken; longer entries first.
	zhReferenceWords = append(slices.Clone(zhPointers), "它们", "刚才", "上面", "前面", "之前", "它", "这", "那")
	// enPointer matches an English noun pointed back at ("the fourth
	// device", "those settings").
	enPointer = regexp.MustCompile(`(?i)\b(?:the\s+(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|next|same|other|previous)|this|that|these|those)\s+([\p{L}\d_]+)`)
	// enNonSubject are English words of a follow-up that name no subject:
	// ordinals and list references.
	enNonSubject = map[string]bool{
		"first": true, "second": true, "third": true, "fourth": true, "fifth": true, "sixth": true,
		"seventh": true, "eighth": true, "ninth": true, "tenth": true, "last": true, "next": true,
		"other": true, "another": true, "former": true, "latter": true, "previous": true, "same": true,
		"one": true, "ones": true, "option": true, "about": true, "he": true, "she": true, "him": true, "her": true,
	}
)

// zhPointedNounRunes bounds the noun taken after a Chinese pointer.
const zhPointedNounRunes = 6

// followUpTerms returns what follow-up q mentions: its Latin words
// (stemmed, as the embedding counts them) and its Chinese character
// bigrams, without references, ordinals, question words and bigrams that
// hold a function word (会报 in 会报什么错); those of the noun it points
// back with are its pointing terms.
func followUpTerms(q string) followUp {
	pointing := subjectFeatures(pointedNouns(text.TrimQuestion(q)))
	s, _ := stripPrefixes(text.TrimQuestion(q), zhLeadingRefs)
	s = enLeadingRefs.ReplaceAllString(s, "")
	s = zhOrdinalNumber.ReplaceAllString(s, " ")
	for _, w := range zhReferenceWords {
		s = strings.ReplaceAll(s, w, " ")
	}
	var out followUp
	for _, k := range subjectFeatures(s) {
		if slices.Contains(pointing, k) {
			out.pointing = append(out.pointing, k)
		} else {
			out.other = append(out.other, k)
		}
	}
	return out
}

// subjectFeatures returns the subject-bearing features of s, sorted: its
// words other than ordinals and list references, and its bigrams without
// a function word.
func subjectFeatures(s string) []string {
	var out []string
	for k := range features(s) {
		switch {
		case strings.HasPrefix(k, "w:"):
			if !enNonSubject[k[2:]] {
				out = append(out, k)
			}
		case strings.HasPrefix(k, "h2:"):
			if !strings.ContainsAny(k[3:], text.ZHFillers+hanEdgeStop) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// pointedNouns returns the nouns s points back at, space-separated: the
// word after an English pointer ("the fourth device", not "that means"),
// and the ideographs after a Chinese ordinal number or pointer up to the
// first function word or question word (第四台设备会报什么错 → 台设备).
func pointedNouns(s string) string {
	var nouns []string
	for _, m := range enPointer.FindAllStringSubmatch(s, -1) {
		if w := strings.ToLower(m[1]); !text.ENStopWords[w] && !enNonSubject[w] && !enDemoVerbs[w] {
			nouns = append(nouns, w)
		}
	}
	var ends []int
	for _, loc := range zhOrdinalNumber.FindAllStringIndex(s, -1) {
		ends = append(ends, loc[1])
	}
	for _, p := range zhPointers {
		for i := 0; ; {
			j := strings.Index(s[i:], p)
			if j < 0 {
				break
			}
			i += j + len(p)
			ends = append(ends, i)
		}
	}
	for _, end := range ends {
		var b strings.Builder
		n := 0
		for _, r := range text.RemoveZHQuestionWords(s[end:]) {
			if !text.IsHan(r) || strings.ContainsRune(text.ZHFillers+hanEdgeStop, r) || n == zhPointedNounRunes {
				break
			}
			b.WriteRune(r)
			n++
		}
		if n >= 2 {
			nouns = append(nouns, b.String())
		}
	}
	return strings.Join(nouns, " ")
}
