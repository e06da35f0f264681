package main

import (
	"slices"
	"sync"
)

// note is the quickstart's resource.
type note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
	Link string `json:"link,omitempty"`
}

// store keeps notes in memory, safe for concurrent handlers.
type store struct {
	mu    sync.RWMutex
	next  int
	notes map[int]note
}

func newStore() *store {
	s := &store{notes: map[int]note{}}
	s.add("Welcome to Plinth.", "https://github.com/plinth-go/plinth")
	return s
}

func (s *store) list() []note {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]note, 0, len(s.notes))
	for _, n := range s.notes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b note) int { return a.ID - b.ID })
	return out
}

func (s *store) get(id int) (note, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.notes[id]
	return n, ok
}

func (s *store) add(text, link string) note {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	n := note{ID: s.next, Text: text, Link: link}
	s.notes[n.ID] = n
	return n
}

func (s *store) remove(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.notes[id]
	delete(s.notes, id)
	return ok
}
