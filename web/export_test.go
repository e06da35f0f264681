package web

// SetPasswordsHook makes p call f in a slot before each hash: the test seam
// that counts the hashes running at once. Set it before p is used.
func SetPasswordsHook(p *Passwords, f func()) { p.onHash = f }

// PasswordsWaiting returns the number of checks waiting for a slot of p.
func PasswordsWaiting(p *Passwords) int64 { return p.waiting.Load() }
