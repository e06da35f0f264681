package plinth

import (
	"strings"
	"testing"
)

// parseEventStream is the HTML standard's event stream interpretation,
// reduced to what Send writes: it returns the dispatched events (type,
// data, last event ID) of stream.
func parseEventStream(stream string) (events [][3]string) {
	var data, typ, lastID strings.Builder
	hasData := false
	// Lines end at CRLF, LF or CR.
	for len(stream) > 0 {
		i := strings.IndexAny(stream, "\r\n")
		if i < 0 {
			break // an incomplete line is never processed
		}
		line := stream[:i]
		if stream[i] == '\r' && i+1 < len(stream) && stream[i+1] == '\n' {
			i++
		}
		stream = stream[i+1:]
		if line == "" {
			if hasData {
				d := strings.TrimSuffix(data.String(), "\n")
				t := typ.String()
				if t == "" {
					t = "message"
				}
				events = append(events, [3]string{t, d, lastID.String()})
			}
			data.Reset()
			typ.Reset()
			hasData = false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			hasData = true
		case "event":
			typ.Reset()
			typ.WriteString(value)
		case "id":
			if !strings.Contains(value, "\x00") {
				lastID.Reset()
				lastID.WriteString(value)
			}
		}
	}
	return events
}

// Whatever the fields, a valid Event reaches a standard client as exactly
// one event with its name, its ID and its data (line breaks as LF); an
// invalid one is refused.
func FuzzSSEEvent(f *testing.F) {
	f.Add("7", "tick", "a\nb", "note")
	f.Add("", "", "", "")
	f.Add("x", "e", "a\r\n\rb\n", "c\rd")
	f.Fuzz(func(t *testing.T, id, name, data, comment string) {
		e := Event{ID: id, Event: name, Data: data}
		if strings.ContainsAny(id, "\r\n\x00") || strings.ContainsAny(name, "\r\n") {
			return // Send refuses it (TestSSEHeadersAndEvents)
		}
		stream := string(appendComment(appendEvent(nil, &e), comment))
		got := parseEventStream(stream)
		wantName := name
		if wantName == "" {
			wantName = "message"
		}
		wantData := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(data)
		if len(got) != 1 || got[0] != [3]string{wantName, wantData, id} {
			t.Fatalf("%q parsed as %q, want [%q %q %q]", stream, got, wantName, wantData, id)
		}
	})
}
