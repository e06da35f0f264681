package plinth

// ConflictCandidates returns how many registered patterns the App's
// registrations were compared with, for TestRegistrationIsLinear.
func ConflictCandidates(a *App) int { return a.index.offered }
