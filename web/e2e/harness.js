// The browser tests' harness: a real `ragchat serve` (built from this
// repository; PostgreSQL when RAGCHAT_TEST_DATABASE_URL is set, as in
// `make test`, else SQLite) and Debian's chromium driven by playwright-core
// (CHROMIUM_PATH; no browser is downloaded). Screenshots of each step go to
// RAGCHAT_WEB_SCREENSHOTS, which `make test` prints.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../clients/node/lib/server.js';

export { gql } from '../../clients/node/lib/server.js';

/** Hang guard for every wait: generous, never a timing assertion. */
export const patience = 60_000;

const shotsDir = process.env.RAGCHAT_WEB_SCREENSHOTS;
if (shotsDir) mkdirSync(shotsDir, { recursive: true });

/**
 * Starts a server (the offline model paced so that answers stream over
 * many frames) and a browser. serverOptions go to startServer (e.g.
 * { databaseURL } for a database the test seeds itself). Returns { base,
 * server, browser, page(), shot(), stop() }.
 */
export async function startConsole(extraEnv = {}, serverOptions = {}) {
  const server = await startServer({ RAGCHAT_OFFLINE_TOKEN_DELAY: '50ms', ...extraEnv }, serverOptions);
  const base = server.http.replace(/\/graphql$/, '');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  let n = 0;
  return {
    base,
    server,
    browser,
    /** A fresh context (its own storage) and page. */
    async page() {
      const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1200, height: 800 } });
      context.setDefaultTimeout(patience);
      const page = await context.newPage();
      page.on('pageerror', (err) => console.error('page error:', err));
      return page;
    },
    /** Saves a screenshot of the page named after the step. */
    async shot(page, name) {
      if (!shotsDir) return;
      n++;
      await page.screenshot({ path: join(shotsDir, `${String(n).padStart(2, '0')}-${name}.png`) });
    },
    async stop() {
      await browser.close();
      await server.stop();
    },
  };
}

/** Signs in through the development sign-in page as one of the demo users. */
export async function signIn(page, base, user) {
  await page.goto(`${base}/signin`);
  await page.getByTestId(`signin-${user}`).click();
  await page.getByTestId('viewer').filter({ hasText: user }).waitFor();
}

/**
 * Starts a new conversation and waits for its composer. From a
 * conversation's page the URL is /c/… already, so it waits for another
 * conversation's URL and for the old conversation's turns to be gone;
 * waiting for any /c/ URL let a test type into, read the id of, or tag the
 * conversation it came from while the new one was still being created.
 */
export async function newConversation(page) {
  const before = new URL(page.url()).pathname;
  await page.getByTestId('new-conversation').click();
  await page.waitForURL((url) => /\/c\//.test(url.pathname) && url.pathname !== before);
  await page.waitForFunction(() => !document.querySelector('[data-testid=turn]'));
  await page.getByTestId('question').waitFor();
}

/** Types a question and presses Enter. */
export async function ask(page, question) {
  await page.getByTestId('question').fill(question);
  await page.getByTestId('question').press('Enter');
}

/**
 * Records, in the page, how the streaming answer is painted: the number
 * of animation frames in which its text grew (window.__paints) and the
 * last streamed text (window.__streamed).
 */
export async function watchStreaming(page) {
  await page.evaluate(() => {
    window.__paints = 0;
    window.__streamed = '';
    let last = '';
    const tick = () => {
      const el = document.querySelector('[data-testid=streaming-answer]');
      const text = el?.firstElementChild ? el.firstElementChild.textContent : '';
      if (el && text !== last && text.length > 0) {
        window.__paints++;
        window.__streamed = text;
      }
      last = text;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}
