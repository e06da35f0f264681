package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/smtp"
	"strings"
	"testing"
	"time"
)

// TestCatcher: the script refuses the first RCPT, the next message comes
// out as one JSON line with its decoded parts.
func TestCatcher(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, outW, errW, "127.0.0.1:0", "none", "", "", "RCPT=550 5.1.1 nobody") }()
	first, err := bufio.NewReader(errR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(first, "listening on "))
	msg := "Subject: =?utf-8?q?Bienvenue_Zo=C3=AB?=\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhello\r\n"
	if err := smtp.SendMail(addr, nil, "a@example.com", []string{"b@example.com"}, []byte(msg)); err == nil || !strings.Contains(err.Error(), "550") {
		t.Fatalf("first send: %v, want the scripted 550", err)
	}
	if err := smtp.SendMail(addr, nil, "a@example.com", []string{"b@example.com"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	var l line
	if err := json.NewDecoder(outR).Decode(&l); err != nil {
		t.Fatal(err)
	}
	if l.From != "a@example.com" || l.Subject != "Bienvenue Zoë" || l.Text != "hello\r\n" || len(l.To) != 1 {
		t.Fatalf("line %+v", l)
	}
	cancel()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), io.Discard, io.Discard, "127.0.0.1:0", "none", "", "", "HELO=250 x"); err == nil {
		t.Fatal("a bad script was accepted")
	}
}
