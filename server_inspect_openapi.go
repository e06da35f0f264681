package plinth

// OpenAPI returns the App's OpenAPI document as JSON, from the function
// SetOpenAPI registered (api.New registers its API's), or nil and no error
// when none is registered. Test tools read it (plinthtest checks responses
// against it); it builds the document on its first call, so call it once
// registration is over.
func (a *App) OpenAPI() ([]byte, error) {
	if a.openAPI == nil {
		return nil, nil
	}
	return a.openAPI()
}
