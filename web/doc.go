// Package web is Plinth's layer for applications that render HTML: sessions
// (lazy, typed, with memory, cookie, Redis and PostgreSQL stores), CSRF
// protection (origin checks and masked form tokens), password hashing and
// sign-in helpers, flash messages, locale negotiation with message
// catalogues, html/template views with layouts and partials, and HTML error
// pages.
//
// Every piece costs nothing on requests that do not use it: a request that
// never touches its session reads no cookie, calls no store, sets no cookie
// and allocates nothing.
package web
