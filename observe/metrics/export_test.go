package metrics

// ServerAddr returns the address the separate server listens on, "" when
// it does not run.
func (m *Metrics) ServerAddr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.srv == nil {
		return ""
	}
	return m.srv.ln.Addr().String()
}
