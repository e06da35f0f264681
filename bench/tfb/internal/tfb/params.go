package tfb

// MaxQueries is the largest row count a queries, updates or cached-queries
// request may ask for; larger values are clamped to it.
const MaxQueries = 500

// QueryCount parses the queries (or count) parameter as TFB requires: a
// missing, empty or non-integer value, or one below 1, means 1; a value
// above 500 means 500. It does not allocate.
func QueryCount(s string) int {
	if s == "" {
		return 1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 0 && (c == '-' || c == '+') && len(s) > 1 {
			if c == '-' {
				return 1
			}
			continue
		}
		if c < '0' || c > '9' {
			return 1
		}
		n = n*10 + int(c-'0')
		if n > MaxQueries {
			return MaxQueries
		}
	}
	if n < 1 {
		return 1
	}
	return n
}
