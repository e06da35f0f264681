package jobs

import (
	"strings"
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

// next follows the fields: steps, ranges, lists, names, macros, and
// cron's either-day rule.
func TestCronNext(t *testing.T) {
	cases := []struct {
		spec, from string
		want       []string
	}{
		{"*/5 * * * *", "2026-03-01 10:02", []string{"2026-03-01 10:05", "2026-03-01 10:10"}},
		{"*/5 * * * *", "2026-03-01 10:55", []string{"2026-03-01 11:00"}},
		{"0 * * * *", "2026-03-01 10:00", []string{"2026-03-01 11:00", "2026-03-01 12:00"}},
		{"@hourly", "2026-03-01 23:30", []string{"2026-03-02 00:00"}},
		{"@daily", "2026-12-31 12:00", []string{"2027-01-01 00:00"}},
		{"@midnight", "2026-12-31 12:00", []string{"2027-01-01 00:00"}},
		{"@weekly", "2026-03-04 12:00", []string{"2026-03-08 00:00"}}, // Sunday
		{"@monthly", "2026-01-31 00:00", []string{"2026-02-01 00:00", "2026-03-01 00:00"}},
		{"@yearly", "2026-06-01 00:00", []string{"2027-01-01 00:00"}},
		{"@annually", "2026-06-01 00:00", []string{"2027-01-01 00:00"}},
		{"15,45 9-10 * * *", "2026-03-01 09:20", []string{"2026-03-01 09:45", "2026-03-01 10:15", "2026-03-01 10:45", "2026-03-02 09:15"}},
		{"10-40/15 * * * *", "2026-03-01 09:00", []string{"2026-03-01 09:10", "2026-03-01 09:25", "2026-03-01 09:40", "2026-03-01 10:10"}},
		{"5/20 * * * *", "2026-03-01 09:00", []string{"2026-03-01 09:05", "2026-03-01 09:25", "2026-03-01 09:45"}},
		{"0 12 * * mon-fri", "2026-03-06 13:00", []string{"2026-03-09 12:00"}}, // Friday afternoon → Monday
		{"0 12 * * MON,wed", "2026-03-03 13:00", []string{"2026-03-04 12:00", "2026-03-09 12:00"}},
		{"0 0 * * 7", "2026-03-02 00:00", []string{"2026-03-08 00:00"}}, // 7 is Sunday
		{"0 0 1 jan,jul *", "2026-02-01 00:00", []string{"2026-07-01 00:00", "2027-01-01 00:00"}},
		{"0 0 29 2 *", "2026-01-01 00:00", []string{"2028-02-29 00:00"}},
		{"0 0 31 * *", "2026-04-01 00:00", []string{"2026-05-31 00:00", "2026-07-31 00:00"}},
		// Both day fields restricted: the 13th or a Friday.
		{"0 0 13 * 5", "2026-03-01 00:00", []string{"2026-03-06 00:00", "2026-03-13 00:00", "2026-03-20 00:00"}},
		// One restricted: Fridays only (the */1 day of month is "*").
		{"0 0 */1 * 5", "2026-03-01 00:00", []string{"2026-03-06 00:00", "2026-03-13 00:00"}},
		// The other way round: */1 day of week is "*", so the 13th only.
		{"0 0 13 * */1", "2026-03-01 00:00", []string{"2026-03-13 00:00", "2026-04-13 00:00"}},
		// A step that skips days restricts: the 13th or an even weekday.
		{"0 0 13 * */2", "2026-03-01 00:00", []string{"2026-03-03 00:00", "2026-03-05 00:00", "2026-03-07 00:00", "2026-03-08 00:00"}},
		// A range of one value.
		{"5-5 9-9 * * *", "2026-03-01 00:00", []string{"2026-03-01 09:05", "2026-03-02 09:05"}},
	}
	for _, tc := range cases {
		s, err := parseCron(tc.spec, time.UTC)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		at := utc(tc.from)
		for _, w := range tc.want {
			at = s.next(at)
			if !at.Equal(utc(w)) {
				t.Errorf("%q from %s: %s, want %s", tc.spec, tc.from, at.Format("2006-01-02 15:04 Mon"), w)
				break
			}
		}
	}
}

// Against a brute force: every minute of a year, matched field by field.
func TestCronNextBruteForce(t *testing.T) {
	for _, spec := range []string{"*/7 1-5 * * *", "30 */6 1,15 * *", "0 0 * feb-mar sat,sun", "59 23 28-31 * *", "0 9 13 * fri"} {
		s, err := parseCron(spec, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		match := func(m time.Time) bool {
			return s.minute&(1<<m.Minute()) != 0 && s.hour&(1<<m.Hour()) != 0 && s.month&(1<<int(m.Month())) != 0 && s.dayMatches(m)
		}
		at := utc("2026-01-01 00:00")
		m := at.Add(time.Minute)
		for range 800 {
			want := m
			for !match(want) {
				want = want.Add(time.Minute)
			}
			got := s.next(at)
			if !got.Equal(want) {
				t.Fatalf("%q after %s: %s, want %s", spec, at, got, want)
			}
			at, m = got, got.Add(time.Minute)
		}
	}
}

// In a zone with a half-hour offset, hours are the zone's.
func TestCronLocation(t *testing.T) {
	loc := time.FixedZone("IST", 5*3600+1800)
	s, err := parseCron("0 9 * * *", loc)
	if err != nil {
		t.Fatal(err)
	}
	got := s.next(time.Date(2026, 3, 1, 10, 0, 0, 0, loc))
	if want := time.Date(2026, 3, 2, 9, 0, 0, 0, loc); !got.Equal(want) {
		t.Errorf("%s, want %s", got, want)
	}
}

// Bad specs are errors naming the field and the problem.
func TestCronErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"":               "want 5 fields",
		"* * * *":        "want 5 fields",
		"* * * * * *":    "want 5 fields",
		"60 * * * *":     "minute field \"60\": 60 is out of range 0-59",
		"* 24 * * *":     "hour field",
		"* * 0 * *":      "day of month field",
		"* * 32 * *":     "day of month field",
		"* * * 13 *":     "month field",
		"* * * foo *":    "want a number 1-12 or a name",
		"* * * * 8":      "day of week field",
		"*/0 * * * *":    "step \"0\"",
		"*/x * * * *":    "step \"x\"",
		"5-1 * * * *":    "runs backwards",
		"1,,2 * * * *":   "empty list item",
		"a * * * *":      "want a number 0-59",
		"@often":         "unknown macro",
		"0 0 30 2 *":     "never fires",
		"0 0 31 4,6,9 *": "never fires",
	} {
		_, err := parseCron(spec, time.UTC)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", spec, err, want)
		}
	}
}

// Every's ticks are the multiples of the period since the epoch.
func TestEveryNext(t *testing.T) {
	e := every(2 * time.Second)
	got := e.next(time.Date(2026, 3, 1, 10, 0, 1, 500, time.UTC))
	if want := time.Date(2026, 3, 1, 10, 0, 2, 0, time.UTC); !got.Equal(want) {
		t.Errorf("%s, want %s", got, want)
	}
	if got2 := e.next(got); !got2.Equal(got.Add(2 * time.Second)) {
		t.Errorf("from a tick: %s", got2)
	}
}
