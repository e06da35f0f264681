// Package plinthtfb is the Plinth implementation of the TechEmpower
// benchmark: a plinth.Bare App with one native handler per test and a
// middleware that sets the Server header, written the way a user would write
// it. cmd/tfb-server is its main.
package plinthtfb
