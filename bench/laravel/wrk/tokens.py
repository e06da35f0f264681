#!/usr/bin/env python3
"""tokens.py URL N [login]: prints N lines "COOKIE<TAB>TOKEN" for wrk's Lua
scripts, each from a fresh visitor's GET URL (no cookie sent): the Cookie
header its answer sets and the CSRF token of its <meta name="csrf-token">.
With "login", it then signs in with that pair (POST /login, form field
$CSRF_FIELD) and prints the signed-in cookies instead, once (N=1).
One keep-alive connection; stdlib only."""
import html
import http.client
import os
import re
import sys
import urllib.parse

META = re.compile(r'<meta name="csrf-token" content="([^"]*)"')


def cookies(resp, jar):
    for k, v in resp.getheaders():
        if k.lower() == "set-cookie":
            name, _, rest = v.partition("=")
            val = rest.split(";", 1)[0]
            if val == "" or "max-age=0" in v.lower():
                jar.pop(name, None)
            else:
                jar[name] = val
    return jar


def header(jar):
    return "; ".join(f"{k}={v}" for k, v in jar.items())


def main():
    url = urllib.parse.urlsplit(sys.argv[1])
    n = int(sys.argv[2])
    login = len(sys.argv) > 3 and sys.argv[3] == "login"
    field = os.environ.get("CSRF_FIELD", "csrf_token")
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    out = []
    for _ in range(n):
        conn.request("GET", url.path or "/")
        resp = conn.getresponse()
        body = resp.read().decode()
        jar = cookies(resp, {})
        m = META.search(body)
        if resp.status != 200 or not m:
            sys.exit(f"tokens.py: GET {sys.argv[1]}: status {resp.status}, token {'found' if m else 'missing'}")
        token = html.unescape(m.group(1))
        if login:
            form = urllib.parse.urlencode({field: token, "email": "demo@example.com", "password": "demo-password"})
            conn.request("POST", "/login", body=form, headers={
                "Cookie": header(jar), "Content-Type": "application/x-www-form-urlencoded"})
            resp = conn.getresponse()
            resp.read()
            if resp.status != 303:
                sys.exit(f"tokens.py: POST /login: status {resp.status}")
            cookies(resp, jar)
        out.append(f"{header(jar)}\t{token}")
    sys.stdout.write("\n".join(out) + "\n")


main()
