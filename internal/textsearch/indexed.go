package textsearch

import (
	"database/sql/driver"
	"fmt"
)

// Indexed is a document's terms as one backend's index column stores them:
// the TSVector text of a PostgreSQL tsvector column, or the FTS5Document
// text of the SQLite column an FTS5 table is fed from. It is the Go type
// of the search_tokens columns (ent/schema); it is written, never read
// back for anything but round trips.
type Indexed string

// Value implements driver.Valuer: the encoded text, which PostgreSQL casts
// to the column's tsvector type.
func (x Indexed) Value() (driver.Value, error) { return string(x), nil }

// Scan implements sql.Scanner; NULL is "".
func (x *Indexed) Scan(v any) error {
	switch s := v.(type) {
	case nil:
		*x = ""
	case string:
		*x = Indexed(s)
	case []byte:
		*x = Indexed(s)
	default:
		return fmt.Errorf("textsearch: cannot scan %T into Indexed", v)
	}
	return nil
}
