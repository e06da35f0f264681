package verify

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Fortune is one row of the fortune table.
type Fortune struct {
	ID      int
	Message string
}

// additionalFortune is the row every fortunes response adds at request time.
var additionalFortune = Fortune{ID: 0, Message: "Additional fortune added at request time."}

// ParseFortunes reads the fortune table's rows from tab-separated lines of
// id and message (the format of testdata/fortunes.tsv). Messages are taken
// verbatim; blank lines are skipped.
func ParseFortunes(r io.Reader) ([]Fortune, error) {
	var rows []Fortune
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		idText, msg, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("fortunes line %d: want id<TAB>message, got %q", n, line)
		}
		id, err := strconv.Atoi(idText)
		if err != nil {
			return nil, fmt.Errorf("fortunes line %d: id %q is not an integer", n, idText)
		}
		rows = append(rows, Fortune{ID: id, Message: msg})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading fortunes: %w", err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("fortunes: no rows")
	}
	return rows, nil
}

// expectedFortunes returns the rows a fortunes response must list: the
// table's rows plus the additional one, sorted by message in byte order.
func expectedFortunes(table []Fortune) []Fortune {
	rows := append([]Fortune{additionalFortune}, table...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Message < rows[j].Message })
	return rows
}
