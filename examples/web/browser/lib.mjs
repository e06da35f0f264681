// Helpers of the browser tests: the example's server processes, free ports,
// the "other origin" server and the browser. Everything listens on and talks
// to 127.0.0.1 (and "localhost", which Chromium maps to loopback itself).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import nodePath from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.PLINTH_CHROMIUM || '/usr/bin/chromium';
export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_PASSWORD = 'demo-password';

// WEB_BIN is the example built once by run.sh.
export const WEB_BIN = process.env.WEB_BIN;
if (!WEB_BIN) {
  throw new Error('WEB_BIN is not set: run the browser tests with examples/web/browser/run.sh, which builds the example');
}

// The stores of the services the machine runs, or '' when their variable is
// unset (the tests that need them are skipped, naming the variable).
// Redis: database 5, so that these sessions stay apart from other tests'.
export const REDIS_URL = redisDB(process.env.PLINTH_TEST_REDIS, 5);
export const POSTGRES_URL = process.env.PLINTH_TEST_POSTGRES || '';

function redisDB(raw, db) {
  if (!raw) return '';
  const u = new URL(raw);
  u.pathname = `/${db}`;
  return u.toString();
}

// A fixed cookie-store key (32 bytes, base64), so that a restarted server
// opens the cookies sealed by the one before.
export const COOKIE_KEYS = Buffer.alloc(32, 7).toString('base64');

// freePort asks the kernel for a port that is free on 127.0.0.1.
export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Every server process started and not yet stopped, killed if the tests end
// early (a failure, a signal), so that none is left running.
const live = new Set();
function killAll(signal) {
  for (const s of live) {
    try { s.proc.kill(signal); } catch { /* already gone */ }
  }
}
process.on('exit', () => killAll('SIGKILL'));
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => { killAll('SIGTERM'); process.exit(130); });
}

// Server is one process of the example.
export class Server {
  constructor(port, env) {
    this.port = port;
    this.env = env;
    this.url = `http://127.0.0.1:${port}`;
    this.log = '';
    this.proc = null;
  }

  // start runs the binary and waits until GET /readyz answers 200.
  async start() {
    const env = { ...process.env, PLINTH_ADDR: `127.0.0.1:${this.port}`, ...this.env };
    delete env.PLINTH_ENV; // production mode: templates parsed once
    if (!env.PLINTH_DATABASE_URL) {
      // Each process its own SQLite file, out of the repository: the
      // users (the demo account) and the job queue live there.
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'plinth-web-'));
      env.PLINTH_DATABASE_URL = `sqlite:${nodePath.join(dir, 'web.db')}`;
    }
    const proc = spawn(WEB_BIN, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
      live.delete(this);
      resolve({ code, signal });
    }));
    live.add(this);
    const keep = (b) => { this.log += b.toString(); };
    proc.stdout.on('data', keep);
    proc.stderr.on('data', keep);
    let gone = null;
    this.exited.then((r) => { gone = r; });

    const deadline = Date.now() + 20_000;
    let last = '';
    while (Date.now() < deadline) {
      if (gone) {
        throw new Error(`server on ${this.url} exited (${JSON.stringify(gone)}) before it was ready:\n${this.log}`);
      }
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        last = `${res.status} ${await res.text()}`;
        if (res.status === 200) return this;
      } catch (e) {
        last = String(e.cause?.code || e.message);
      }
      await sleep(50);
    }
    await this.stop();
    throw new Error(`server on ${this.url} not ready after 20s (last /readyz: ${last}):\n${this.log}`);
  }

  // stop sends SIGTERM (the server drains and exits) and waits for the exit;
  // a server still running after 15 s is killed and that is an error.
  async stop() {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) {
      return this.exited && (await this.exited);
    }
    this.proc.kill('SIGTERM');
    const r = await Promise.race([this.exited, sleep(15_000).then(() => null)]);
    if (r === null) {
      this.proc.kill('SIGKILL');
      await this.exited;
      throw new Error(`server on ${this.url} did not exit within 15s of SIGTERM:\n${this.log}`);
    }
    if (r.code !== 0) {
      throw new Error(`server on ${this.url} exited with ${JSON.stringify(r)} after SIGTERM:\n${this.log}`);
    }
    return r;
  }
}

// startServer starts the example on a free port (or the port given) with the
// store settings in env.
export async function startServer(env = {}, port) {
  return new Server(port ?? (await freePort()), env).start();
}

// otherOrigin serves the pages of another origin (a server on another port
// of 127.0.0.1: another origin of the same site): path -> HTML.
export async function otherOrigin(pages) {
  const srv = http.createServer((req, res) => {
    const body = pages[req.url.split('?')[0]];
    if (body === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(body);
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  return {
    port,
    close: () => new Promise((resolve) => { srv.closeAllConnections(); srv.close(resolve); }),
  };
}

// launchBrowser starts Debian's chromium, headless.
export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking'],
    headless: true,
    timeout: 60_000,
  });
}

// login signs the demo user in through the form on page and waits for the
// page it lands on.
export async function login(page, base, password = DEMO_PASSWORD) {
  await page.goto(`${base}/login`);
  await page.fill('#login-form input[name=email]', DEMO_EMAIL);
  await page.fill('#login-form input[name=password]', password);
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${base}/login` && r.request().method() === 'POST'),
    page.waitForNavigation(),
    page.click('#login-form button[type=submit]'),
  ]);
  await page.waitForLoadState('load');
  return res;
}

// path is the path (and query) of page's URL.
export function path(page) {
  const u = new URL(page.url());
  return u.pathname + u.search;
}
