package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

type user struct{ ID, Email, Hash string }

func authApp(t *testing.T) (*plinth.App, *int) {
	t.Helper()
	hash, err := web.PasswordParams{Memory: 64, Time: 1}.Hash("demo-password") // cheap for tests
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]*user{"1": {ID: "1", Email: "demo@example.com", Hash: hash}}
	loads := new(int)
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	auth := web.NewAuth(web.AuthConfig[*user]{
		NextParam: "next",
		LoadUser: func(_ context.Context, id string) (*user, error) {
			*loads++
			if u := users[id]; u != nil {
				return u, nil
			}
			return nil, web.ErrNoUser
		},
	})
	app := plinth.New()
	s.Attach(app)
	auth.Attach(app)
	app.With(auth.Throttle()).Post("/login", func(c *plinth.Ctx) error {
		r := c.Request()
		var found *user
		for _, u := range users {
			if u.Email == r.PostFormValue("email") {
				found = u
			}
		}
		hash := ""
		if found != nil {
			hash = found.Hash
		}
		ok, _, err := web.CheckPassword(hash, r.PostFormValue("password"))
		if err != nil || !ok {
			return c.Text(200, "wrong")
		}
		if err := auth.Login(c, found.ID); err != nil {
			return err
		}
		return c.Redirect(303, web.SafeNext(r.URL.Query().Get("next"), "/account"))
	})
	app.Post("/logout", func(c *plinth.Ctx) error {
		if err := auth.Logout(c); err != nil {
			return err
		}
		return c.Redirect(303, "/")
	})
	app.With(auth.RequireUser()).Get("/account", func(c *plinth.Ctx) error {
		u, _, _ := auth.User(c)
		u2, _, _ := auth.User(c) // loaded once per request
		if web.UserOf(c).(*user) != u || u2 != u {
			return c.Text(500, "different users")
		}
		return c.Text(200, u.Email)
	})
	app.Post("/delete-me", func(c *plinth.Ctx) error {
		delete(users, "1")
		return c.NoContent(204)
	})
	return app, loads
}

func TestAuthLoginLogout(t *testing.T) {
	app, loads := authApp(t)
	cl := newClient(t, app)
	html := []string{"Accept", "text/html,application/xhtml+xml,*/*;q=0.8"}

	w := cl.do("GET", "/account?tab=1", "", html...)
	if w.Code != 303 || w.Header().Get("Location") != "/login?next=%2Faccount%3Ftab%3D1" {
		t.Fatalf("signed-out browser: %d %q", w.Code, w.Header().Get("Location"))
	}
	if w := cl.do("GET", "/account", "", "Accept", "application/json"); w.Code != 401 {
		t.Fatalf("signed-out API client: %d", w.Code)
	}
	w = cl.do("POST", "/login", url.Values{"email": {"demo@example.com"}, "password": {"nope"}}.Encode())
	if w.Body.String() != "wrong" || len(cl.cookie) != 0 {
		t.Fatalf("wrong password: %q, cookies %v", w.Body, cl.cookie)
	}
	// A session planted before sign-in is not the one signed in.
	cl.do("GET", "/account", "", html...)
	w = cl.do("POST", "/login?next=/account?tab=1", url.Values{"email": {"demo@example.com"}, "password": {"demo-password"}}.Encode())
	if w.Code != 303 || w.Header().Get("Location") != "/account?tab=1" {
		t.Fatalf("login: %d %q", w.Code, w.Header().Get("Location"))
	}
	signedIn := cl.cookie["session"]
	*loads = 0
	if got := cl.get("/account"); got != "demo@example.com" {
		t.Fatalf("account: %q", got)
	}
	if *loads != 1 {
		t.Errorf("LoadUser ran %d times in one request, want 1", *loads)
	}
	w = cl.do("POST", "/logout", "")
	if w.Code != 303 || w.Header().Get("Location") != "/" {
		t.Fatalf("logout: %d %q", w.Code, w.Header().Get("Location"))
	}
	old := newClient(t, app)
	old.cookie["session"] = signedIn
	if w := old.do("GET", "/account", "", html...); w.Code != 303 {
		t.Fatalf("old cookie after logout: %d %s", w.Code, w.Body)
	}
	// A deleted user is signed out, not an error.
	cl.do("POST", "/login", url.Values{"email": {"demo@example.com"}, "password": {"demo-password"}}.Encode())
	cl.do("POST", "/delete-me", "")
	if w := cl.do("GET", "/account", "", html...); w.Code != 303 {
		t.Fatalf("deleted user: %d", w.Code)
	}
}

func TestAuthThrottle(t *testing.T) {
	app, _ := authApp(t)
	good := url.Values{"email": {"demo@example.com"}, "password": {"demo-password"}}.Encode()
	bad := url.Values{"email": {"demo@example.com"}, "password": {"guess"}}.Encode()
	cl := newClient(t, app)
	// Successful sign-ins are never throttled.
	for i := range 20 {
		if w := cl.do("POST", "/login", good); w.Code != 303 {
			t.Fatalf("sign-in %d: %d", i, w.Code)
		}
	}
	var codes []int
	var last *httptest.ResponseRecorder
	for range 8 {
		last = cl.do("POST", "/login", bad)
		codes = append(codes, last.Code)
	}
	// Five failures take the five tokens; the sixth finds none and is
	// refused before its password is checked.
	want := []int{200, 200, 200, 200, 200, 429, 429, 429}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("failed attempts: %v, want %v", codes, want)
	}
	if ra := last.Header().Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("429 without Retry-After: %q", ra)
	}
	// While locked, even the right password is refused: the lock is on
	// guessing, not on wrong answers.
	if w := cl.do("POST", "/login", good); w.Code != 429 {
		t.Errorf("right password while locked: %d", w.Code)
	}
	// Another account from the same address is not held back.
	if w := cl.do("POST", "/login", url.Values{"email": {"other@example.com"}, "password": {"x"}}.Encode()); w.Code != 200 {
		t.Fatalf("other account: %d", w.Code)
	}
}

func TestSafeNext(t *testing.T) {
	for next, want := range map[string]string{
		"/account":             "/account",
		"/a?b=c":               "/a?b=c",
		"":                     "/home",
		"//evil.example":       "/home",
		"/\\evil.example":      "/home",
		"https://evil.example": "/home",
		"javascript:alert(1)":  "/home",
		"/ok\r\nSet-Cookie: x": "/home",
	} {
		if got := web.SafeNext(next, "/home"); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", next, got, want)
		}
	}
}
