package jobs

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// schedule is when a periodic job's ticks fall: next returns the first
// tick strictly after t (zero when there is none within cronHorizon).
type schedule interface {
	next(t time.Time) time.Time
	String() string
}

// every ticks at the multiples of d since the Unix epoch (UTC), so that
// every instance computes the same ticks whenever it started.
type every time.Duration

func (d every) next(t time.Time) time.Time {
	n := t.UnixNano()
	p := int64(d)
	return time.Unix(0, (n/p+1)*p).UTC()
}

func (d every) String() string { return "every " + time.Duration(d).String() }

// cronSpec is a parsed 5-field cron expression: a bit set per field.
type cronSpec struct {
	src                    string
	minute, hour, dom, dow uint64
	month                  uint64
	domStar, dowStar       bool
	loc                    *time.Location
}

// cronHorizon bounds the search for the next tick: a spec with no tick
// within it (February 30th) is refused when parsed.
const cronHorizon = 5 * 366 * 24 * time.Hour

// cronField describes one field's range and names.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] is min+i's name, if the field has names
}

var cronFields = [5]cronField{
	{"minute", 0, 59, nil},
	{"hour", 0, 23, nil},
	{"day of month", 1, 31, nil},
	{"month", 1, 12, []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{"day of week", 0, 7, []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

var cronMacros = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// parseCron parses a 5-field cron expression (minute, hour, day of month,
// month, day of week) in loc: each field is *, a number, a range a-b, a
// list a,b,c, any of those with a step (*/5, 10-40/10), months and
// weekdays also by their English three-letter names (jan, mon), and
// Sunday as 0 or 7; or one of @yearly, @annually, @monthly, @weekly,
// @daily, @midnight, @hourly. When both day fields are restricted, a day
// matching either runs (as in Vixie cron).
func parseCron(spec string, loc *time.Location) (*cronSpec, error) {
	src := strings.TrimSpace(spec)
	expr := src
	if strings.HasPrefix(expr, "@") {
		m, ok := cronMacros[strings.ToLower(expr)]
		if !ok {
			return nil, fmt.Errorf("jobs: cron %q: unknown macro (want @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)", spec)
		}
		expr = m
	}
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return nil, fmt.Errorf("jobs: cron %q: want 5 fields (minute hour day-of-month month day-of-week), got %d", spec, len(fields))
	}
	c := &cronSpec{src: src, loc: loc}
	dst := [5]*uint64{&c.minute, &c.hour, &c.dom, &c.month, &c.dow}
	for i, f := range fields {
		bits, err := parseCronField(f, cronFields[i])
		if err != nil {
			return nil, fmt.Errorf("jobs: cron %q: %s field %q: %w", spec, cronFields[i].name, f, err)
		}
		*dst[i] = bits
	}
	if c.dow&(1<<7) != 0 { // 7 is Sunday too
		c.dow |= 1
		c.dow &^= 1 << 7
	}
	c.domStar = fields[2] == "*" || strings.HasPrefix(fields[2], "*/") && c.dom == rangeBits(1, 31, 1)
	c.dowStar = fields[4] == "*" || strings.HasPrefix(fields[4], "*/") && c.dow == rangeBits(0, 6, 1)
	ref := time.Date(2000, 1, 1, 0, 0, 0, 0, loc)
	if c.next(ref).IsZero() {
		return nil, fmt.Errorf("jobs: cron %q never fires (no such day)", spec)
	}
	return c, nil
}

// parseCronField parses one field into a bit set of its values.
func parseCronField(s string, f cronField) (uint64, error) {
	var bits uint64
	for part := range strings.SplitSeq(s, ",") {
		if part == "" {
			return 0, fmt.Errorf("empty list item")
		}
		rng, stepStr, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("step %q: want a whole number, 1 or more", stepStr)
			}
			step = n
		}
		lo, hi := f.min, f.max
		if f.name == "day of week" {
			hi = 6 // * is 0-6; 7 only as Sunday's other name
		}
		switch {
		case rng == "*":
		default:
			a, b, isRange := strings.Cut(rng, "-")
			var err error
			if lo, err = cronValue(a, f); err != nil {
				return 0, err
			}
			hi = lo
			if isRange {
				if hi, err = cronValue(b, f); err != nil {
					return 0, err
				}
				if hi < lo {
					return 0, fmt.Errorf("range %d-%d runs backwards", lo, hi)
				}
			} else if hasStep {
				hi = f.max // "5/15" is 5-max/15
			}
		}
		bits |= rangeBits(lo, hi, step)
	}
	return bits, nil
}

// cronValue parses one number or name of field f.
func cronValue(s string, f cronField) (int, error) {
	for i, n := range f.names {
		if strings.EqualFold(s, n) {
			return f.min + i, nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		if f.names != nil {
			return 0, fmt.Errorf("%q: want a number %d-%d or a name (%s)", s, f.min, f.max, strings.Join(f.names, ", "))
		}
		return 0, fmt.Errorf("%q: want a number %d-%d", s, f.min, f.max)
	}
	if n < f.min || n > f.max {
		return 0, fmt.Errorf("%d is out of range %d-%d", n, f.min, f.max)
	}
	return n, nil
}

func rangeBits(lo, hi, step int) uint64 {
	var b uint64
	for v := lo; v <= hi; v += step {
		b |= 1 << v
	}
	return b
}

func (c *cronSpec) String() string { return "cron " + c.src }

// dayMatches applies cron's rule for the two day fields.
func (c *cronSpec) dayMatches(t time.Time) bool {
	dom := c.dom&(1<<t.Day()) != 0
	dow := c.dow&(1<<int(t.Weekday())) != 0
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}

// next returns the first minute after t the spec matches, in its location,
// or the zero time when none comes within cronHorizon.
func (c *cronSpec) next(t time.Time) time.Time {
	t = t.In(c.loc).Truncate(time.Minute).Add(time.Minute)
	end := t.Add(cronHorizon)
	for t.Before(end) {
		switch {
		case c.month&(1<<int(t.Month())) == 0:
			y, m, _ := t.Date()
			t = time.Date(y, m+1, 1, 0, 0, 0, 0, c.loc)
		case !c.dayMatches(t):
			y, m, d := t.Date()
			t = time.Date(y, m, d+1, 0, 0, 0, 0, c.loc)
		case c.hour&(1<<t.Hour()) == 0:
			// Add, not Date: across a DST change Date may repeat an hour.
			t = t.Add(time.Duration(60-t.Minute()) * time.Minute)
		case c.minute&(1<<t.Minute()) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}
