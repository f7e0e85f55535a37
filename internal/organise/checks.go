package organise

import (
	"regexp"
	"strings"

	"github.com/ragchat/ragchat/internal/domain"
)

// The input limits of organising, as extensions.limit names them.
const (
	LimitTagNameLength        = "tagNameLength"
	LimitFolderNameLength     = "folderNameLength"
	LimitTagsPerUser          = "tagsPerUser"
	LimitTagsPerConversation  = "tagsPerConversation"
	LimitFoldersPerUser       = "foldersPerUser"
	LimitFolderDepth          = "folderDepth"
	LimitMetadataKeys         = "metadataKeys"
	LimitMetadataKeyLength    = "metadataKeyLength"
	LimitMetadataValueLength  = "metadataValueLength"
	LimitFolderPosition       = "folderPosition"
	MaxTagNameChars           = 64
	MaxFolderNameChars        = 100
	MaxMetadataKeys           = 16
	MaxMetadataKeyChars       = 64
	MaxMetadataValueChars     = 512
	MaxFolderPosition         = 1 << 30
	metadataField             = "metadata"
	tagNameRuleField          = "name"
	folderNameRuleField       = "name"
	tagIDsField               = "tagIds"
	colorField                = "color"
	positionField             = "position"
	parentField               = "parentId"
	metadataValueFieldMessage = "metadata values"
)

// checkTagName trims and checks a tag's name: 1 to 64 characters.
func checkTagName(name string) (string, error) {
	return domain.TextRule{Field: tagNameRuleField, Limit: LimitTagNameLength, Max: MaxTagNameChars, Required: true}.Check(name)
}

// checkFolderName trims and checks a folder's name: 1 to 100 characters.
func checkFolderName(name string) (string, error) {
	return domain.TextRule{Field: folderNameRuleField, Limit: LimitFolderNameLength, Max: MaxFolderNameChars, Required: true}.Check(name)
}

// hexColor is a CSS hex colour: #RGB or #RRGGBB.
var hexColor = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// checkColor trims and checks an optional colour: nil or "" means none.
func checkColor(c *string) (*string, error) {
	if c == nil {
		return nil, nil
	}
	t := strings.TrimSpace(*c)
	if t == "" {
		return nil, nil
	}
	if !hexColor.MatchString(t) {
		return nil, domain.BadInput(colorField, "color must be a hex colour such as #RGB or #RRGGBB")
	}
	return &t, nil
}

// checkPosition checks an optional folder position: nil (none given), or
// 0 up to 2^30.
func checkPosition(p *int) error {
	if p != nil && (*p < 0 || *p > MaxFolderPosition) {
		return domain.OverLimit(positionField, LimitFolderPosition, MaxFolderPosition,
			"position must be between 0 and %d", MaxFolderPosition)
	}
	return nil
}

// MetadataChange is one change of a conversation's metadata: Value sets
// Key, nil deletes it.
type MetadataChange struct {
	Key   string
	Value *string
}

// checkMetadataChanges checks each change (a key of 1 to 64 characters, a
// value of at most 512, valid UTF-8 without NUL) and refuses a key given
// twice. Keys and values are taken as given, not trimmed: they are an
// integrator's identifiers.
func checkMetadataChanges(changes []MetadataChange) error {
	seen := make(map[string]bool, len(changes))
	for _, c := range changes {
		if err := checkMetadataText(c.Key, MaxMetadataKeyChars, LimitMetadataKeyLength, "metadata keys", true); err != nil {
			return err
		}
		if seen[c.Key] {
			return domain.BadInput(metadataField, "metadata key %q is given twice", c.Key)
		}
		seen[c.Key] = true
		if c.Value != nil {
			if err := checkMetadataText(*c.Value, MaxMetadataValueChars, LimitMetadataValueLength, metadataValueFieldMessage, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkMetadataText checks one key or value.
func checkMetadataText(s string, max int, limit, what string, required bool) error {
	switch {
	case required && s == "":
		return domain.BadInput(metadataField, "%s must not be empty", what)
	case !validText(s):
		return domain.BadInput(metadataField, "%s must be valid UTF-8 text without NUL characters", what)
	case len([]rune(s)) > max:
		return domain.OverLimit(metadataField, limit, max, "%s are at most %d characters", what, max)
	}
	return nil
}

// validText reports whether s is valid UTF-8 without NUL characters.
func validText(s string) bool {
	return strings.ToValidUTF8(s, "\uFFFD") == s && !strings.ContainsRune(s, 0)
}

// mergeMetadata applies changes to current and checks the result's size:
// at most 16 keys.
func mergeMetadata(current map[string]string, changes []MetadataChange) (map[string]string, error) {
	out := make(map[string]string, len(current)+len(changes))
	for k, v := range current {
		out[k] = v
	}
	for _, c := range changes {
		if c.Value == nil {
			delete(out, c.Key)
		} else {
			out[c.Key] = *c.Value
		}
	}
	if len(out) > MaxMetadataKeys {
		return nil, domain.OverLimit(metadataField, LimitMetadataKeys, MaxMetadataKeys,
			"a conversation holds at most %d metadata keys", MaxMetadataKeys)
	}
	return out, nil
}

// equalMetadata reports whether a and b hold the same pairs.
func equalMetadata(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
