package web_test

import (
	"strings"
	"testing"

	"github.com/plinth-go/plinth/web"
)

func TestPasswordHash(t *testing.T) {
	h, err := web.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not PHC argon2id with the defaults", h)
	}
	h2, _ := web.HashPassword("correct horse")
	if h == h2 {
		t.Error("two hashes of one password are equal: no salt")
	}
	ok, upgrade, err := web.CheckPassword(h, "correct horse")
	if !ok || upgrade || err != nil {
		t.Errorf("right password: ok %v upgrade %v err %v", ok, upgrade, err)
	}
	ok, _, err = web.CheckPassword(h, "correct horsf")
	if ok || err != nil {
		t.Errorf("wrong password: ok %v err %v", ok, err)
	}
	weak, err := web.PasswordParams{Memory: 1024, Time: 1}.Hash("pw")
	if err != nil {
		t.Fatal(err)
	}
	ok, upgrade, err = web.CheckPassword(weak, "pw")
	if !ok || !upgrade || err != nil {
		t.Errorf("weaker hash: ok %v upgrade %v err %v, want a match that asks for an upgrade", ok, upgrade, err)
	}
	if ok, _, err := web.CheckPassword("", "pw"); ok || err != nil {
		t.Errorf("unknown user: ok %v err %v", ok, err)
	}
	for _, bad := range []string{
		"plaintext",
		"$2a$10$abcdefghijklmnopqrstuu", // bcrypt
		"$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=99999999,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=19456,t=0,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=19456,t=2,p=1$!!!$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=19456,t=2$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
	} {
		if ok, _, err := web.CheckPassword(bad, "pw"); ok || err == nil {
			t.Errorf("CheckPassword(%q): ok %v err %v, want ErrPasswordHash", bad, ok, err)
		}
	}
}
