package organise

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
)

func ptr[T any](v T) *T { return &v }

// TestMergeMetadata: merges set and delete keys; bad keys, values,
// repeats and a result over 16 keys are BAD_USER_INPUT on "metadata" with
// the limit named.
func TestMergeMetadata(t *testing.T) {
	many := map[string]string{}
	for i := range 16 {
		many[strings.Repeat("k", i+1)] = "v"
	}
	cases := []struct {
		name    string
		current map[string]string
		changes []MetadataChange
		want    map[string]string
		limit   string
		bad     bool
	}{
		{"set", nil, []MetadataChange{{"a", ptr("1")}}, map[string]string{"a": "1"}, "", false},
		{"delete", map[string]string{"a": "1", "b": "2"}, []MetadataChange{{"a", nil}}, map[string]string{"b": "2"}, "", false},
		{"replace at the limit", many, []MetadataChange{{"k", ptr("w")}}, nil, "", false},
		{"over the limit", many, []MetadataChange{{"new", ptr("v")}}, nil, LimitMetadataKeys, true},
		{"delete makes room", many, []MetadataChange{{"k", nil}, {"new", ptr("v")}}, nil, "", false},
		{"empty key", nil, []MetadataChange{{"", ptr("v")}}, nil, "", true},
		{"long key", nil, []MetadataChange{{strings.Repeat("键", 65), ptr("v")}}, nil, LimitMetadataKeyLength, true},
		{"long value", nil, []MetadataChange{{"k", ptr(strings.Repeat("值", 513))}}, nil, LimitMetadataValueLength, true},
		{"longest value", nil, []MetadataChange{{"k", ptr(strings.Repeat("值", 512))}}, nil, "", false},
		{"NUL", nil, []MetadataChange{{"k", ptr("a\x00")}}, nil, "", true},
		{"twice", nil, []MetadataChange{{"k", ptr("1")}, {"k", nil}}, nil, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := checkMetadataChanges(tc.changes)
			var got map[string]string
			if err == nil {
				got, err = mergeMetadata(tc.current, tc.changes)
			}
			if tc.bad {
				var de *domain.Error
				if !asDomain(err, &de) || de.Code != domain.CodeBadUserInput || de.Details["field"] != "metadata" {
					t.Fatalf("got %v, want BAD_USER_INPUT on metadata", err)
				}
				if tc.limit != "" && de.Details["limit"] != tc.limit {
					t.Errorf("limit %v, want %s", de.Details["limit"], tc.limit)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil && !equalMetadata(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func asDomain(err error, out **domain.Error) bool {
	de, ok := err.(*domain.Error)
	*out = de
	return ok
}

// TestCheckColor: hex colours only; blank means none.
func TestCheckColor(t *testing.T) {
	for in, ok := range map[string]bool{"#abc": true, " #A0B1C2 ": true, "": true, "red": false, "#abcd": false, "#12345g": false, "url(x)": false} {
		_, err := checkColor(&in)
		if (err == nil) != ok {
			t.Errorf("%q: err %v, want ok %v", in, err, ok)
		}
	}
}

// TestFolderTree: depth, height, descent, next position and tree order,
// and a cycle neither loops nor loses folders.
func TestFolderTree(t *testing.T) {
	id := func(n byte) uuid.UUID { return uuid.UUID{n} }
	at := time.Unix(0, 0)
	f := func(n byte, parent *uuid.UUID, pos int) *ent.Folder {
		return &ent.Folder{ID: id(n), Name: string('A' + n - 1), ParentID: parent, Position: pos, CreatedAt: at}
	}
	tr := newFolderTree([]*ent.Folder{
		f(1, nil, 1), f(2, ptr(id(1)), 0), f(3, ptr(id(2)), 0), f(4, nil, 0), f(5, ptr(id(1)), 5),
	})
	if d := tr.depth(id(3)); d != 3 {
		t.Errorf("depth %d", d)
	}
	if h := tr.height(id(1)); h != 3 {
		t.Errorf("height %d", h)
	}
	if !tr.within(id(1), id(3)) || tr.within(id(3), id(1)) || !tr.within(id(2), id(2)) {
		t.Error("within")
	}
	if p := tr.nextPosition(ptr(id(1))); p != 6 {
		t.Errorf("next position %d", p)
	}
	var names string
	for _, x := range tr.ordered() {
		names += x.Name
	}
	if names != "DABCE" {
		t.Errorf("order %s", names)
	}
	cyc := newFolderTree([]*ent.Folder{f(1, ptr(id(2)), 0), f(2, ptr(id(1)), 0), f(3, nil, 0)})
	if n := len(cyc.ordered()); n != 3 || cyc.depth(id(1)) != 2 || cyc.height(id(1)) != 2 {
		t.Errorf("cycle: %d folders, depth %d, height %d", n, cyc.depth(id(1)), cyc.height(id(1)))
	}
}
