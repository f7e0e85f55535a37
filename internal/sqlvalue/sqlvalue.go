// Package sqlvalue converts the values of columns that Ent selects beside
// an entity's own (joined or computed columns, read with Entity.Value) to
// Go types. Drivers return them differently: lib/pq gives text as []byte,
// modernc SQLite gives booleans as integers and uuids as strings.
package sqlvalue

import (
	"fmt"
	"strconv"

	"github.com/google/uuid"
)

// UUID converts a uuid column.
func UUID(v any) (uuid.UUID, error) {
	switch x := v.(type) {
	case []byte:
		if len(x) == 16 {
			return uuid.FromBytes(x)
		}
		return uuid.ParseBytes(x)
	case string:
		return uuid.Parse(x)
	}
	return uuid.Nil, fmt.Errorf("unexpected %T", v)
}

// Text converts a text column; NULL and other types are "".
func Text(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	}
	return ""
}

// Int converts an integer column.
func Int(v any) (int, error) {
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case int32:
		return int(x), nil
	case int:
		return x, nil
	case []byte:
		return strconv.Atoi(string(x))
	case string:
		return strconv.Atoi(x)
	}
	return 0, fmt.Errorf("unexpected %T", v)
}

// Bool converts a boolean column (SQLite stores integers); NULL is false.
func Bool(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case []byte:
		b, _ := strconv.ParseBool(string(x))
		return b
	case string:
		b, _ := strconv.ParseBool(x)
		return b
	}
	return false
}
