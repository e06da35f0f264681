package httpsyntax

import "strings"

// MaxCodings is the number of offered content codings ParseAcceptEncoding
// weighs: more than a server offers (br, zstd, gzip). Codings offered
// beyond it are never acceptable.
const MaxCodings = 8

// unset marks a coding, "identity" or "*" that no well-formed element of
// the field named.
const unset = -1

// AcceptEncoding is what a request's Accept-Encoding field says about the
// content codings a server offers, made by ParseAcceptEncoding. The zero
// value accepts no coding and does not forbid the identity: a request
// without the field.
type AcceptEncoding struct {
	q                 [MaxCodings]int16 // weight of offered[i] in thousandths; 0: not acceptable
	identityForbidden bool
}

// ParseAcceptEncoding weighs the content codings offered (registered names
// such as "br", "zstd", "gzip", not "identity" or "*", in the server's
// order of preference; at most MaxCodings count) against the
// Accept-Encoding field lines values (several lines are one list). It
// allocates nothing.
//
// The rules are RFC 9110 §12.5.3's:
//
//   - Each element is a coding with an optional weight ";q=" qvalue (0 to
//     1, at most three decimals; 1 when absent). Names are case-insensitive
//     and "x-gzip" is gzip, "x-compress" compress (§8.4.1). Spaces and tabs
//     around names, parameters and "=" are allowed; empty elements are
//     skipped; an element that is not a token with parameters, or whose q
//     is malformed or given twice, is ignored, the rest of the field still
//     counts. Other parameters are tolerated and ignored.
//   - A coding's weight comes from its own elements, else from "*", which
//     stands for every coding the field does not name; a coding named by
//     neither is not acceptable. A weight of 0 means not acceptable.
//   - A coding named more than once gets the weight of its first element
//     (nginx, for one, reads only the first), except that an explicit q=0 in any of its
//     elements refuses it: "br;q=0.9, br;q=0.5" weighs br 0.9, while
//     "br, br;q=0" and "br;q=0, br" refuse it. Sending a coding the client
//     said it cannot decode breaks the response, while not sending one it
//     would have accepted only costs bytes, so a refusal is never
//     overridden. The same holds for "*" and "identity".
//   - The identity (no coding) is forbidden only by an explicit
//     "identity;q=0", or by "*;q=0" without an element for identity;
//     its other weights are not compared with the codings' (a server
//     encodes whenever a coding is acceptable).
//   - No field at all and an empty field both mean no coding is acceptable.
//     RFC 9110 lets a server pick any coding for a request without the
//     field, but the clients that send none (curl, scripts, probes) mostly
//     cannot decode one, so servers send the identity, as this does.
func ParseAcceptEncoding(values []string, offered []string) AcceptEncoding {
	var own [MaxCodings]int16
	for i := range own {
		own[i] = unset
	}
	identity, star := int16(unset), int16(unset)
	n := min(len(offered), MaxCodings)
	for _, line := range values {
		for line != "" {
			var elem string
			elem, line, _ = strings.Cut(line, ",")
			coding, q, ok := parseCodingElement(elem)
			if !ok {
				continue
			}
			switch {
			case coding == "*":
				star = weigh(star, q)
			case strings.EqualFold(coding, "identity"):
				identity = weigh(identity, q)
			default:
				coding = canonicalCoding(coding)
				for i := range n {
					if strings.EqualFold(coding, offered[i]) {
						own[i] = weigh(own[i], q)
					}
				}
			}
		}
	}
	var a AcceptEncoding
	for i := range n {
		q := own[i]
		if q == unset {
			q = star
		}
		a.q[i] = max(q, 0)
	}
	if identity == unset {
		identity = star
	}
	a.identityForbidden = identity == 0
	return a
}

// Q returns the weight of offered[i], in thousandths: 1 to 1000 when the
// client accepts it, 0 when it does not (or i is out of range).
func (a *AcceptEncoding) Q(i int) int {
	if i < 0 || i >= MaxCodings {
		return 0
	}
	return int(a.q[i])
}

// Best returns the index in offered of the coding to use: the acceptable
// one with the highest weight, the earliest in offered (the server's
// preference) on ties, leaving out the indexes whose bit is set in skip (1<<i
// for offered[i]; 0 leaves out none). It returns -1 when no coding is left.
// Calling it again with the index found added to skip gives the next
// choice, for a server that may lack one representation.
func (a *AcceptEncoding) Best(skip uint) int {
	best, bestQ := -1, int16(0)
	for i, q := range a.q {
		if skip&(1<<i) == 0 && q > bestQ {
			best, bestQ = i, q
		}
	}
	return best
}

// IdentityForbidden reports whether the client refused the identity
// coding ("identity;q=0", or "*;q=0" without an identity element): a server
// should then encode even a body it would otherwise send as it is.
func (a *AcceptEncoding) IdentityForbidden() bool { return a.identityForbidden }

// weigh records the weight q of an element naming a coding whose weight so
// far is prev (unset when none): the first element's weight counts, but an
// explicit 0 always does.
func weigh(prev, q int16) int16 {
	if prev == unset || q == 0 {
		return q
	}
	return prev
}

// canonicalCoding maps the aliases RFC 9110 §8.4.1 asks recipients to
// accept to the coding they stand for.
func canonicalCoding(c string) string {
	switch {
	case strings.EqualFold(c, "x-gzip"):
		return "gzip"
	case strings.EqualFold(c, "x-compress"):
		return "compress"
	}
	return c
}

// parseCodingElement reads one list element, "coding;q=0.5" with optional
// whitespace and parameters, into the coding name and its weight in
// thousandths (1000 when absent). ok is false for an element that is empty
// or malformed.
func parseCodingElement(elem string) (coding string, q int16, ok bool) {
	coding, params, _ := strings.Cut(elem, ";")
	coding = TrimOWS(coding)
	if !IsToken(coding) {
		return "", 0, false
	}
	q, seen := int16(1000), false
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		if p = TrimOWS(p); p == "" {
			continue
		}
		name, val, hasVal := strings.Cut(p, "=")
		name, val = TrimOWS(name), TrimOWS(val)
		if !hasVal || !IsToken(name) {
			return "", 0, false
		}
		if name == "q" || name == "Q" {
			w, valid := ParseQ(val)
			if !valid || seen {
				return "", 0, false
			}
			q, seen = int16(w), true
		}
	}
	return coding, q, true
}

// ParseQ parses an RFC 9110 qvalue (§12.4.2: "0", "0.5", "1", "1.000"; at
// most three decimals, at most 1) into thousandths, 0 to 1000. ok is false
// for anything else ("", ".5", "1.5", "0.1234", "-0", "1e-1").
func ParseQ(s string) (q int, ok bool) {
	if s == "" || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	q = int(s[0]-'0') * 1000
	if len(s) == 1 {
		return q, true
	}
	if s[1] != '.' {
		return 0, false
	}
	mul := 100
	for i := 2; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int(c-'0') * mul
		mul /= 10
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}
