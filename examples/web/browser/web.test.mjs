// Browser tests of examples/web: Debian's chromium, driven by playwright-core,
// against the example built by run.sh (WEB_BIN), each test on servers it
// starts itself on free ports of 127.0.0.1 and stops with SIGTERM.
//
//	bash examples/web/browser/run.sh
//
// The Redis and PostgreSQL tests need PLINTH_TEST_REDIS and
// PLINTH_TEST_POSTGRES (as .ci/run sets them) and are skipped without.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  COOKIE_KEYS, DEMO_EMAIL, POSTGRES_URL, REDIS_URL,
  launchBrowser, login, otherOrigin, path, startServer,
} from './lib.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

// withSite runs fn with a fresh server (env: its store settings) and a fresh
// browser context, and stops both whatever happens.
async function withSite(env, fn, contextOptions = { locale: 'en-US' }) {
  const srv = await startServer(env);
  const context = await browser.newContext(contextOptions);
  try {
    await fn({ srv, context, page: await context.newPage() });
  } finally {
    await context.close();
    await srv.stop();
  }
}

// sessionCookie returns the session cookie that context holds for 127.0.0.1.
async function sessionCookie(context) {
  return (await context.cookies('http://127.0.0.1/')).find((c) => c.name === 'session');
}

// expectSignedIn opens /account and checks that it shows the demo email.
async function expectSignedIn(page, base, why) {
  await page.goto(`${base}/account`);
  assert.equal(path(page), '/account', `${why}: /account redirected to ${page.url()}`);
  assert.equal((await page.textContent('#email')).trim(), DEMO_EMAIL, why);
}

// expectSignedOut opens /account and checks that it redirects (303) to /login.
async function expectSignedOut(page, base, why) {
  const res = await page.goto(`${base}/account`);
  assert.equal(path(page), '/login', `${why}: /account stayed on ${page.url()}`);
  const redirect = await res.request().redirectedFrom()?.response();
  assert.equal(redirect?.status(), 303, `${why}: /account should answer 303 to /login`);
  assert.equal(await page.locator('#login-form').count(), 1, why);
}

describe('sign-in', () => {
  test('log in, log out, and the old cookie signs nobody in', async () => {
    await withSite({ PLINTH_SESSION_STORE: 'memory' }, async ({ srv, context, page }) => {
      await expectSignedOut(page, srv.url, 'before login');

      const before = await sessionCookie(context); // the CSRF secret's anonymous session, if any
      const res = await login(page, srv.url);
      assert.equal(res.status(), 303, 'POST /login');
      assert.equal(path(page), '/account');
      assert.equal((await page.textContent('#email')).trim(), DEMO_EMAIL);
      assert.match(await page.textContent('.flash-success'), /Welcome back, Demo/);
      const cookie = await sessionCookie(context);
      assert.ok(cookie, 'a session cookie after login');
      assert.equal(cookie.httpOnly, true, 'HttpOnly');
      assert.equal(cookie.sameSite, 'Lax', 'SameSite=Lax');
      assert.equal(cookie.secure, false, 'not Secure on plain http');
      if (before) assert.notEqual(cookie.value, before.value, 'login renews the session ID (fixation)');

      const [logout] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${srv.url}/logout`),
        page.waitForNavigation(),
        page.click('#logout'),
      ]);
      assert.equal(logout.status(), 303, 'POST /logout');
      assert.equal(path(page), '/');
      assert.equal(await page.locator('#logout').count(), 0, 'no logout button once signed out');
      assert.equal(await page.locator('#nav-login').count(), 1);
      await expectSignedOut(page, srv.url, 'after logout');

      // A copy of the cookie from before the logout, in a fresh browser.
      const replay = await browser.newContext({ locale: 'en-US' });
      try {
        await replay.addCookies([cookie]);
        const p = await replay.newPage();
        await expectSignedOut(p, srv.url, 'the pre-logout cookie replayed');
      } finally {
        await replay.close();
      }
    });
  });

  test('a wrong password shows the error and signs nobody in', async () => {
    await withSite({}, async ({ srv, page }) => {
      const res = await login(page, srv.url, 'not-the-password');
      assert.equal(res.status(), 200, 'POST /login with a wrong password');
      assert.equal(path(page), '/login');
      assert.match(await page.textContent('#login-error'), /Wrong email or password/);
      assert.equal(await page.inputValue('#login-form input[name=email]'), DEMO_EMAIL, 'email kept');
      assert.equal(await page.inputValue('#login-form input[name=password]'), '', 'password not echoed');
      await expectSignedOut(page, srv.url, 'after a wrong password');
    });
  });
});

describe('the session survives a restart', () => {
  // Each store: log in, stop the server (SIGTERM), start it again on the
  // same port, reload /account in the same browser context.
  const stores = [
    { name: 'Redis', env: { PLINTH_SESSION_STORE: REDIS_URL }, survives: true, skip: !REDIS_URL && 'PLINTH_TEST_REDIS is not set (e.g. redis://127.0.0.1:6379/0)' },
    { name: 'PostgreSQL', env: { PLINTH_SESSION_STORE: POSTGRES_URL }, survives: true, skip: !POSTGRES_URL && 'PLINTH_TEST_POSTGRES is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)' },
    { name: 'cookie', env: { PLINTH_SESSION_STORE: 'cookie', PLINTH_SESSION_KEYS: COOKIE_KEYS }, survives: true },
    { name: 'memory', env: { PLINTH_SESSION_STORE: 'memory' }, survives: false },
  ];
  for (const s of stores) {
    const title = s.survives
      ? `with the ${s.name} store, still signed in after a restart`
      : `with the ${s.name} store, signed out after a restart (the contrast)`;
    test(title, { skip: s.skip || false }, async () => {
      let srv = await startServer(s.env);
      const context = await browser.newContext({ locale: 'en-US' });
      try {
        const page = await context.newPage();
        await login(page, srv.url);
        assert.equal(path(page), '/account', 'signed in');
        assert.equal((await page.textContent('#email')).trim(), DEMO_EMAIL);

        const port = srv.port;
        await srv.stop();
        srv = await startServer(s.env, port);

        await page.reload();
        if (s.survives) {
          assert.equal(path(page), '/account', `after the restart, /account went to ${page.url()}`);
          assert.equal((await page.textContent('#email')).trim(), DEMO_EMAIL);
          // Signing out works on the new process too.
          await Promise.all([page.waitForNavigation(), page.click('#logout')]);
          await expectSignedOut(page, srv.url, 'after logout on the restarted server');
        } else {
          assert.equal(path(page), '/login', 'the memory store forgets its sessions');
        }
      } finally {
        await context.close();
        await srv.stop();
      }
    });
  }
});

describe('two instances', () => {
  test('share a Redis session', { skip: !REDIS_URL && 'PLINTH_TEST_REDIS is not set (e.g. redis://127.0.0.1:6379/0)' }, async () => {
    const env = { PLINTH_SESSION_STORE: REDIS_URL };
    const a = await startServer(env);
    let b;
    try {
      b = await startServer(env);
    } catch (e) {
      await a.stop();
      throw e;
    }
    const context = await browser.newContext({ locale: 'en-US' });
    try {
      const page = await context.newPage();
      await login(page, a.url);
      assert.equal(path(page), '/account', 'signed in on A');
      // Cookies ignore the port: the browser sends A's cookie to B.
      await expectSignedIn(page, b.url, 'B sees the session made on A');

      await Promise.all([page.waitForNavigation(), page.click('#logout')]);
      assert.equal(new URL(page.url()).origin, b.url, 'logged out on B');
      assert.equal(path(page), '/');
      await expectSignedOut(page, a.url, 'A after logout on B');
    } finally {
      await context.close();
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('CSRF', () => {
  // A page of another origin with a form that posts to the site; the test
  // clicks its button, as a visitor lured there would.
  const evilPage = (action, fields) => `<!doctype html><html><head><title>other origin</title></head><body>
<form id="evil" method="post" action="${action}">
${Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`).join('\n')}
<button type="submit" id="go">Go</button>
</form></body></html>`;

  // postFromOtherOrigin opens url (a page of the other origin) and submits
  // its form; it returns the response of the site to the POST.
  async function postFromOtherOrigin(page, url, target) {
    await page.goto(url);
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url() === target && r.request().method() === 'POST'),
      page.waitForNavigation(),
      page.click('#go'),
    ]);
    return res;
  }

  test('a logout form posted from another origin (same site, other port) is refused', async () => {
    await withSite({}, async ({ srv, page }) => {
      const evil = await otherOrigin({ '/logout.html': evilPage(`${srv.url}/logout`, {}) });
      try {
        await login(page, srv.url);
        assert.equal(path(page), '/account');

        const res = await postFromOtherOrigin(page, `http://127.0.0.1:${evil.port}/logout.html`, `${srv.url}/logout`);
        assert.equal((await res.request().allHeaders())['sec-fetch-site'], 'same-site');
        assert.equal(res.status(), 403, 'cross-origin POST /logout');
        assert.match(res.headers()['content-type'] ?? '', /text\/html/, 'a 403 page for the browser');
        await expectSignedIn(page, srv.url, 'still signed in after the refused logout');
      } finally {
        await evil.close();
      }
    });
  });

  test('a contact form posted from another site is refused and nothing is sent', async () => {
    await withSite({}, async ({ srv, page }) => {
      const fields = { name: 'Mallory', email: 'mallory@example.com', message: 'A message nobody typed here.' };
      const evil = await otherOrigin({ '/contact.html': evilPage(`${srv.url}/contact`, fields) });
      try {
        // From 127.0.0.1 on another port: same site, another origin.
        let res = await postFromOtherOrigin(page, `http://127.0.0.1:${evil.port}/contact.html`, `${srv.url}/contact`);
        assert.equal(res.status(), 403, 'POST /contact from another port');
        // From "localhost": another site.
        res = await postFromOtherOrigin(page, `http://localhost:${evil.port}/contact.html`, `${srv.url}/contact`);
        assert.equal((await res.request().allHeaders())['sec-fetch-site'], 'cross-site');
        assert.equal(res.status(), 403, 'POST /contact from another site');

        // Nothing was sent: no success flash waiting on the site.
        await page.goto(`${srv.url}/contact`);
        assert.equal(await page.locator('.flash-success').count(), 0, 'no message was accepted');
      } finally {
        await evil.close();
      }
    });
  });
});

describe('Content Security Policy', () => {
  test('the nonce\'d inline script runs, the injected one is blocked and reported', async () => {
    await withSite({}, async ({ srv, page }) => {
      const messages = [];
      page.on('console', (m) => messages.push(`${m.type()}: ${m.text()}`));
      const res = await page.goto(`${srv.url}/csp`);
      const csp = res.headers()['content-security-policy'];
      assert.match(csp, /script-src 'self' 'nonce-[^']+'/, 'a nonce in the CSP header');

      await page.waitForSelector('#nonce-status[data-state="ran"]', { timeout: 5000 });
      assert.equal(await page.getAttribute('#nonce-status', 'data-state'), 'ran');
      assert.equal((await page.textContent('#nonce-status')).trim(), 'The nonce\'d script ran.');
      assert.equal((await page.textContent('#injected-status')).trim(), 'not run', 'the script without the nonce must not run');

      // Chromium 156 words it "Executing inline script violates the
      // following Content Security Policy directive ... The action has been
      // blocked."; older ones "Refused to execute inline script because it
      // violates ...".
      const deadline = Date.now() + 5000;
      const isViolation = (m) => /Content Security Policy/.test(m) && /inline script/i.test(m);
      while (!messages.some(isViolation) && Date.now() < deadline) await page.waitForTimeout(50);
      assert.ok(messages.some(isViolation), `a CSP violation on the console; got:\n${messages.join('\n')}`);
    });
  });

  test('upgrade-insecure-requests does not break plain http://127.0.0.1', async () => {
    // The default CSP carries upgrade-insecure-requests. Chromium does not
    // upgrade requests to loopback hosts, so the stylesheet and the forms
    // keep working on http://127.0.0.1 (the sign-in tests post forms).
    await withSite({}, async ({ srv, page }) => {
      const requests = [];
      page.on('request', (r) => requests.push(r.url()));
      const css = page.waitForResponse((r) => r.url().endsWith('/static/site.css'));
      const res = await page.goto(`${srv.url}/`);
      assert.match(res.headers()['content-security-policy'], /upgrade-insecure-requests/);
      assert.equal((await css).status(), 200);
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).maxWidth), '672px', 'site.css applied');
      assert.deepEqual(requests.filter((u) => u.startsWith('https:')), [], 'no request upgraded to https');
    });
  });
});

describe('language', () => {
  test('German by Accept-Language, French by the switch, and it sticks', async () => {
    await withSite({}, async ({ srv, page }) => {
      await page.goto(`${srv.url}/`);
      assert.equal(await page.getAttribute('html', 'lang'), 'de');
      assert.equal((await page.textContent('h1')).trim(), 'Willkommen');

      await Promise.all([page.waitForNavigation(), page.click('#lang-fr')]);
      assert.equal(path(page), '/');
      assert.equal(await page.getAttribute('html', 'lang'), 'fr');
      assert.equal((await page.textContent('h1')).trim(), 'Bienvenue');

      await page.goto(`${srv.url}/login`);
      assert.equal(await page.getAttribute('html', 'lang'), 'fr', 'the choice sticks on the next page');
      assert.equal((await page.textContent('h1')).trim(), 'Connexion');
    }, { locale: 'de-DE' });
  });

  test('English by default', async () => {
    await withSite({}, async ({ srv, page }) => {
      await page.goto(`${srv.url}/`);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.equal((await page.textContent('h1')).trim(), 'Welcome');
    }, { locale: 'en-US' });
  });
});

describe('contact form', () => {
  test('a validation error keeps the input and shows a flash; success shows once', async () => {
    await withSite({}, async ({ srv, page }) => {
      await page.goto(`${srv.url}/contact`);
      await page.fill('#contact-form input[name=name]', 'Ada Lovelace');
      await page.fill('#contact-form input[name=email]', 'not-an-email');
      await page.fill('#contact-form textarea[name=message]', 'short');
      const [invalid] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${srv.url}/contact` && r.request().method() === 'POST'),
        page.waitForNavigation(),
        page.click('#contact-form button[type=submit]'),
      ]);
      assert.equal(invalid.status(), 422);
      assert.equal(await page.inputValue('#contact-form input[name=name]'), 'Ada Lovelace');
      assert.equal(await page.inputValue('#contact-form input[name=email]'), 'not-an-email');
      assert.equal(await page.inputValue('#contact-form textarea[name=message]'), 'short');
      assert.match(await page.textContent('.flash-error'), /Please correct/);
      assert.equal(await page.locator('.field-error').count(), 2, 'errors for email and message');
      assert.match(await page.textContent('#error-email'), /email address/);
      assert.match(await page.textContent('#error-message'), /at least 10 characters/);
      assert.equal(await page.locator('#error-name').count(), 0);

      await page.fill('#contact-form input[name=email]', 'ada@example.com');
      await page.fill('#contact-form textarea[name=message]', 'The Analytical Engine weaves algebraic patterns.');
      const [sent] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${srv.url}/contact` && r.request().method() === 'POST'),
        page.waitForNavigation(),
        page.click('#contact-form button[type=submit]'),
      ]);
      assert.equal(sent.status(), 303);
      assert.equal(path(page), '/contact');
      assert.equal(await page.locator('.flash-success').count(), 1);
      assert.match(await page.textContent('.flash-success'), /Thank you, Ada Lovelace/);
      assert.equal(await page.locator('.flash-error').count(), 0, 'the error flash was shown once already');
      assert.equal(await page.inputValue('#contact-form input[name=name]'), '', 'a fresh form');

      await page.reload();
      assert.equal(await page.locator('.flash-success').count(), 0, 'the flash shows once, not on reload');
    });
  });
});
