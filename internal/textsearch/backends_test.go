package textsearch

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/testdb"
)

// corpus is indexed on every backend; ids are row ids.
var corpus = map[int]string{
	1:  "我喜欢猫和狗",
	2:  "讨论了部署方案",
	3:  "upload failed with ERR_FILE_TOO_LARGE (max 20 MB)",
	4:  "我的VPN设备连不上",
	5:  "the vpn is down again",
	6:  "设备已重启",
	7:  "東京タワーに行きました。ﾗｰﾒﾝも食べた",
	8:  "서울에서 회의가 있습니다",
	9:  "ＶＰＮ　ＥＲＲＯＲ on the full-width keyboard",
	10: "🚀 launch day 🐱",
	11: `O'Brien's back\slash and "double quotes"`,
	12: "ΣΊΣΥΦΟΣ walked down the Straße",
	13: "Привет, мир",
	14: "नमस्ते दुनिया and สวัสดีครับ",
	15: "AND OR NOT NEAR xml xe78cab",
	16: "err_file_too_large 部署",
}

// searches are queries with the ids they must find on every backend.
var searches = []struct {
	query string
	want  []int
}{
	{"猫", []int{1}},
	{"部署", []int{2, 16}},
	{"err_file_too_large", []int{3, 16}},
	{"ERR_FILE_TOO_LARGE", []int{3, 16}},
	{"vpn 设备", []int{4}},
	{"vpn", []int{4, 5, 9}},
	{"ＶＰＮ", []int{4, 5, 9}},
	{"设备", []int{4, 6}},
	{"喜欢猫", []int{1}},
	{"猫狗", nil},
	{"東京", []int{7}},
	{"タワー", []int{7}},
	{"ラーメン", []int{7}},
	{"서울", []int{8}},
	{"회의", []int{8}},
	{"launch", []int{10}},
	{"o'brien", []int{11}},
	{`back\slash`, []int{11}},
	{`"double`, []int{11}},
	{"σίσυφος", []int{12}},
	{"STRASSE", []int{12}},
	{"ПРИВЕТ мир", []int{13}},
	{"नमस्ते", []int{14}},
	{"สวัสดีครับ", []int{14}},
	{"and", []int{11, 14, 15}},
	{"NOT near", []int{15}},
	{"xml", []int{15}},
	{"xe78cab", []int{15}},
	{"max 20 mb", []int{3}},
	{"error", []int{9}},
	{"errors", nil},
}

// TestBackends indexes the corpus in PostgreSQL (tsvector, GIN) and in SQLite
// FTS5 tables with the ascii and the unicode61 tokenizer, and checks that
// every search finds exactly the expected ids on each, which are also the ids
// the token-level rule (every query term is a document token) gives.
func TestBackends(t *testing.T) {
	ctx := context.Background()
	ids := make([]int, 0, len(corpus))
	for id := range corpus {
		ids = append(ids, id)
	}
	slices.Sort(ids)

	type index struct {
		name   string
		search func(t *testing.T, terms []string) []int
	}
	var indexes []index
	for _, b := range testdb.BothBackends(t) {
		db := b.Open(t)
		switch b.Name {
		case "postgres":
			setupPostgres(t, ctx, db, ids)
			indexes = append(indexes, index{"postgres", func(t *testing.T, terms []string) []int {
				return queryIDs(t, ctx, db, `SELECT id FROM docs WHERE tsv @@ $1::tsquery ORDER BY id`, TSQuery(terms))
			}})
		case "sqlite":
			for _, tok := range []string{FTS5Tokenize, "unicode61 remove_diacritics 0"} {
				table := setupFTS5(t, ctx, db, tok, ids)
				indexes = append(indexes, index{"sqlite " + tok, func(t *testing.T, terms []string) []int {
					return queryIDs(t, ctx, db, fmt.Sprintf(`SELECT rowid FROM %s WHERE %[1]s MATCH ? ORDER BY rowid`, table), FTS5Match(terms))
				}})
			}
		}
	}
	if len(indexes) != 3 {
		t.Fatalf("indexed on %d backends, want postgres and two sqlite tables", len(indexes))
	}

	for _, s := range searches {
		t.Run(s.query, func(t *testing.T) {
			terms := Query(s.query)
			if len(terms) == 0 {
				t.Fatalf("Query(%q) is empty", s.query)
			}
			var model []int
			for _, id := range ids {
				if matches(Tokens(corpus[id]), terms) {
					model = append(model, id)
				}
			}
			if !slices.Equal(model, s.want) {
				t.Errorf("token rule finds %v, want %v (terms %q)", model, s.want, terms)
			}
			for _, ix := range indexes {
				if got := ix.search(t, terms); !slices.Equal(got, s.want) {
					t.Errorf("%s finds %v, want %v (terms %q)", ix.name, got, s.want, terms)
				}
			}
		})
	}
}

// setupPostgres creates a GIN-indexed tsvector table holding the corpus and
// checks that PostgreSQL stored exactly the distinct tokens as lexemes.
func setupPostgres(t *testing.T, ctx context.Context, db *sql.DB, ids []int) {
	t.Helper()
	exec(t, ctx, db, `CREATE TABLE docs (id int PRIMARY KEY, tsv tsvector NOT NULL)`)
	exec(t, ctx, db, `CREATE INDEX docs_tsv ON docs USING gin (tsv)`)
	for _, id := range ids {
		exec(t, ctx, db, `INSERT INTO docs (id, tsv) VALUES ($1, $2::tsvector)`, id, TSVector(Tokens(corpus[id])))
		var lexemes []string
		var arr string
		if err := db.QueryRowContext(ctx, `SELECT array_to_string(tsvector_to_array(tsv), chr(1)) FROM docs WHERE id = $1`, id).Scan(&arr); err != nil {
			t.Fatal(err)
		}
		if arr != "" {
			lexemes = strings.Split(arr, "\x01")
		}
		want := distinct(Tokens(corpus[id]))
		slices.Sort(lexemes)
		slices.Sort(want)
		if !slices.Equal(lexemes, want) {
			t.Errorf("postgres lexemes of doc %d = %q, want the distinct tokens %q", id, lexemes, want)
		}
	}
}

// setupFTS5 creates an FTS5 table with the tokenizer tok holding the corpus,
// and checks with fts5vocab that the table holds exactly the distinct encoded
// tokens (so the tokenizer split none of them).
func setupFTS5(t *testing.T, ctx context.Context, db *sql.DB, tok string, ids []int) string {
	t.Helper()
	table := "docs_" + strings.Fields(tok)[0]
	exec(t, ctx, db, fmt.Sprintf(`CREATE VIRTUAL TABLE %s USING fts5(body, tokenize=%q)`, table, tok))
	exec(t, ctx, db, fmt.Sprintf(`CREATE VIRTUAL TABLE %s_vocab USING fts5vocab(%[1]s, 'row')`, table))
	var all []string
	for _, id := range ids {
		exec(t, ctx, db, fmt.Sprintf(`INSERT INTO %s (rowid, body) VALUES (?, ?)`, table), id, FTS5Document(Tokens(corpus[id])))
		for _, tk := range Tokens(corpus[id]) {
			all = append(all, FTS5Term(tk))
		}
	}
	want := distinct(all)
	slices.Sort(want)
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT term FROM %s_vocab ORDER BY term`, table))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s vocabulary has %d terms, want the %d distinct encoded tokens", table, len(got), len(want))
	}
	return table
}

// TestBackendsLongDocument indexes a worst-case document — MaxDocumentTokens
// distinct terms of MaxTermBytes — on both backends: PostgreSQL accepts the
// tsvector (below its 1 MB limit) and both find the document by its last
// term.
func TestBackendsLongDocument(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	for i := range MaxDocumentTokens + 100 {
		// A distinct word of MaxTermBytes Cyrillic letters (2 bytes each).
		w := []rune(strings.Repeat("ж", MaxTermBytes/2))
		for k, n := 0, i; k < 4; k, n = k+1, n/32 {
			w[k] = 'а' + rune(n%32)
		}
		b.WriteString(string(w) + " ")
	}
	text := b.String()
	tokens := Tokens(text)
	if len(tokens) != MaxDocumentTokens || len(distinct(tokens)) != MaxDocumentTokens || len(tokens[0]) != MaxTermBytes {
		t.Fatalf("worst case has %d tokens, %d distinct, of %d bytes; want %d distinct of %d bytes",
			len(tokens), len(distinct(tokens)), len(tokens[0]), MaxDocumentTokens, MaxTermBytes)
	}
	last, beyond := Query(tokens[len(tokens)-1]), Query(strings.Fields(text)[MaxDocumentTokens])
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			db := be.Open(t)
			var find func(terms []string) []int
			switch be.Name {
			case "postgres":
				exec(t, ctx, db, `CREATE TABLE docs (id int PRIMARY KEY, tsv tsvector NOT NULL)`)
				exec(t, ctx, db, `INSERT INTO docs (id, tsv) VALUES (1, $1::tsvector)`, TSVector(tokens))
				var n int
				if err := db.QueryRowContext(ctx, `SELECT length(tsv) FROM docs`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != MaxDocumentTokens {
					t.Errorf("stored tsvector has %d lexemes, want %d", n, MaxDocumentTokens)
				}
				find = func(terms []string) []int {
					return queryIDs(t, ctx, db, `SELECT id FROM docs WHERE tsv @@ $1::tsquery`, TSQuery(terms))
				}
			case "sqlite":
				exec(t, ctx, db, `CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='ascii')`)
				exec(t, ctx, db, `INSERT INTO docs (rowid, body) VALUES (1, ?)`, FTS5Document(tokens))
				find = func(terms []string) []int {
					return queryIDs(t, ctx, db, `SELECT rowid FROM docs WHERE docs MATCH ?`, FTS5Match(terms))
				}
			}
			if got := find(last); !slices.Equal(got, []int{1}) {
				t.Errorf("last indexed term finds %v, want [1]", got)
			}
			if got := find(beyond); len(got) != 0 {
				t.Errorf("a term beyond the cap finds %v, want nothing", got)
			}
		})
	}
}

func exec(t *testing.T, ctx context.Context, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(ctx, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func queryIDs(t *testing.T, ctx context.Context, db *sql.DB, query string, args ...any) []int {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s %q: %v", query, args, err)
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// distinct returns the distinct strings of s in first-seen order.
func distinct(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// TestFTS5RawTermsWouldSplit shows why FTS5Term encodes non-ASCII terms:
// stored as raw UTF-8, one Devanagari term (its vowel signs are combining
// marks) becomes several unicode61 tokens, so a match could no longer
// require the term as a whole.
func TestFTS5RawTermsWouldSplit(t *testing.T) {
	ctx := context.Background()
	db := testdb.Backend{Name: "sqlite", Driver: testdb.SQLiteDriver, DSN: testdb.SQLiteDSN(t)}.Open(t)
	exec(t, ctx, db, `CREATE VIRTUAL TABLE raw USING fts5(body, tokenize='unicode61 remove_diacritics 0')`)
	exec(t, ctx, db, `CREATE VIRTUAL TABLE raw_vocab USING fts5vocab(raw, 'row')`)
	toks := Tokens("नमस्ते")
	if len(toks) != 1 {
		t.Fatalf("Tokens(नमस्ते) = %q, want one term", toks)
	}
	exec(t, ctx, db, `INSERT INTO raw (rowid, body) VALUES (1, ?), (2, ?)`, toks[0], FTS5Document(toks))
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM raw_vocab`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	// Row 2 adds exactly one (encoded) term; row 1 adds the raw pieces.
	if n-1 < 2 {
		t.Errorf("raw नमस्ते gave %d unicode61 tokens; expected the tokenizer to split it", n-1)
	}
}

// TestQuoting stores terms that Tokens never produces — quotes, backslashes,
// spaces, tsquery operators, FTS5 syntax — with the encoders, and checks that
// each backend keeps every term whole and finds it, so the encoders are safe
// for any input.
func TestQuoting(t *testing.T) {
	ctx := context.Background()
	odd := []string{"o'brien", `back\slash`, `\'`, "''", "a b", "a:1", "!x", "a & b", "(c)", `"q"`, "x*", "NEAR", "col:umn", "^a", "-", "猫'狗"}
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			db := be.Open(t)
			for _, term := range odd {
				var found int
				switch be.Name {
				case "postgres":
					var arr string
					if err := db.QueryRowContext(ctx, `SELECT array_to_string(tsvector_to_array($1::tsvector), chr(1)) FROM (SELECT 1) x`, TSVector([]string{term})).Scan(&arr); err != nil {
						t.Fatalf("TSVector(%q): %v", term, err)
					}
					if arr != term {
						t.Errorf("TSVector(%q) is stored as %q", term, arr)
					}
					if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT $1::tsvector AS v) x WHERE v @@ $2::tsquery`,
						TSVector([]string{"pad", term}), TSQuery([]string{term, "pad"})).Scan(&found); err != nil {
						t.Fatalf("TSQuery(%q): %v", term, err)
					}
				case "sqlite":
					exec(t, ctx, db, `CREATE VIRTUAL TABLE IF NOT EXISTS q USING fts5(body, tokenize='unicode61 remove_diacritics 0')`)
					exec(t, ctx, db, `DELETE FROM q`)
					exec(t, ctx, db, `INSERT INTO q (rowid, body) VALUES (1, ?), (2, ?)`, FTS5Document([]string{"pad", term}), FTS5Document([]string{"pad"}))
					if err := db.QueryRowContext(ctx, `SELECT count(*) FROM q WHERE q MATCH ?`, FTS5Match([]string{term, "pad"})).Scan(&found); err != nil {
						t.Fatalf("FTS5Match(%q): %v", term, err)
					}
				}
				if found != 1 {
					t.Errorf("%s: the term %q finds %d rows, want 1", be.Name, term, found)
				}
			}
		})
	}
}
