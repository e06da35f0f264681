package plinth

import (
	"sort"
	"strings"
)

// Methods are numbered so that a route table is a fixed array per node and a
// set of methods is a bit mask. The nine RFC 9110/5789 methods have fixed ids;
// other methods registered on an App get the next free ids at registration.
const (
	mGET = iota
	mHEAD
	mPOST
	mPUT
	mPATCH
	mDELETE
	mCONNECT
	mOPTIONS
	mTRACE
	numStdMethods
)

// maxMethods bounds the distinct methods of one App (a mask is a uint64).
const maxMethods = 64

var stdMethods = [numStdMethods]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"}

// stdMethodID returns the fixed id of a standard method, or -1.
func stdMethodID(m string) int {
	switch m {
	case "GET":
		return mGET
	case "HEAD":
		return mHEAD
	case "POST":
		return mPOST
	case "PUT":
		return mPUT
	case "PATCH":
		return mPATCH
	case "DELETE":
		return mDELETE
	case "CONNECT":
		return mCONNECT
	case "OPTIONS":
		return mOPTIONS
	case "TRACE":
		return mTRACE
	}
	return -1
}

// methodSet holds the methods an App knows: the standard ones and any custom
// ones its routes registered.
type methodSet struct {
	names  []string // by id
	custom map[string]int
}

func newMethodSet() methodSet {
	return methodSet{names: append([]string(nil), stdMethods[:]...), custom: map[string]int{}}
}

// id returns m's id, registering a custom method if add is set; -1 when m is
// unknown and not added.
func (s *methodSet) id(m string, add bool) int {
	if id := stdMethodID(m); id >= 0 {
		return id
	}
	if id, ok := s.custom[m]; ok {
		return id
	}
	if !add {
		return -1
	}
	if len(s.names) == maxMethods {
		panic("plinth: more than 64 distinct HTTP methods registered")
	}
	s.custom[m] = len(s.names)
	s.names = append(s.names, m)
	return len(s.names) - 1
}

// allow renders an Allow header value for a mask of method ids: sorted, with
// HEAD added when GET is present and OPTIONS always present (Plinth answers
// OPTIONS itself on any path that has routes).
func (s *methodSet) allow(mask uint64) string {
	if mask&(1<<mGET) != 0 {
		mask |= 1 << mHEAD
	}
	mask |= 1 << mOPTIONS
	var names []string
	for id, n := range s.names {
		if mask&(1<<id) != 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
