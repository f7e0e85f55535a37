// Browser tests of the admin's tenant settings and audit events: a
// settings round trip (edit, save, the new version shown), a second tab
// saving an older version gets CONFLICT and reloads, the server's
// BAD_USER_INPUT names the field next to it, and the audit events page
// lists the updates, filtered, with infinite scroll.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gql, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

/** Opens the settings page and returns its version. */
async function openSettings(page) {
  await page.goto(`${app.base}/admin/settings`);
  const v = page.getByTestId('settings-version');
  await v.waitFor();
  return Number(await v.getAttribute('data-version'));
}

test('tenant settings round trip, CONFLICT from a second tab, and the field a refusal names', async () => {
  const first = await app.page();
  await signIn(first, app.base, 'demo-admin');
  const v0 = await openSettings(first);
  await first.getByTestId('setting-historyStrategy').selectOption('PRIORITIZED');
  await first.getByTestId('setting-historyRounds').fill('7');
  await first.getByTestId('setting-budgetRatios.history').fill('0.35');
  await first.getByTestId('settings-save').click();
  await first.getByTestId('settings-saved').waitFor();
  await first.locator(`[data-testid=settings-version][data-version="${v0 + 1}"]`).waitFor();
  assert.equal(await first.getByTestId('setting-historyStrategy').inputValue(), 'PRIORITIZED');
  assert.equal(await first.getByTestId('setting-historyRounds').inputValue(), '7');
  assert.equal(await first.getByTestId('setting-budgetRatios.history').inputValue(), '0.35');
  await app.shot(first, 'settings-saved');

  // A second tab opens the settings; the first saves again meanwhile.
  const second = await app.page();
  await signIn(second, app.base, 'demo-admin');
  assert.equal(await openSettings(second), v0 + 1);
  await first.getByTestId('setting-summaryMaxChars').fill('1500');
  await first.getByTestId('settings-save').click();
  await first.locator(`[data-testid=settings-version][data-version="${v0 + 2}"]`).waitFor();

  // The second tab's change was made on the older version: CONFLICT.
  await second.getByTestId('setting-retrievalTopK').fill('9');
  await second.getByTestId('settings-save').click();
  const conflict = second.getByTestId('settings-conflict');
  await conflict.waitFor();
  assert.equal(await conflict.getAttribute('data-code'), 'CONFLICT');
  assert.match(await conflict.innerText(), new RegExp(String(v0 + 2)));
  await app.shot(second, 'settings-conflict');
  await second.getByTestId('settings-reload').click();
  await second.locator(`[data-testid=settings-version][data-version="${v0 + 2}"]`).waitFor();
  assert.equal(await second.getByTestId('setting-summaryMaxChars').inputValue(), '1500', 'the reload shows the other tab’s change');
  await second.getByTestId('setting-retrievalTopK').fill('9');
  await second.getByTestId('settings-save').click();
  await second.locator(`[data-testid=settings-version][data-version="${v0 + 3}"]`).waitFor();

  // The server refuses a value: its extensions.field is shown by the field.
  await second.getByTestId('setting-historyRounds').fill('500');
  await second.getByTestId('settings-save').click();
  await second.getByTestId('field-error-historyRounds').waitFor();
  assert.equal(await second.getByTestId('setting-historyRounds').getAttribute('aria-invalid'), 'true');
  await app.shot(second, 'settings-field-error');
  // The ratios' sum is named as the group.
  await second.getByTestId('setting-historyRounds').fill('7');
  await second.getByTestId('setting-budgetRatios.history').fill('0.9');
  await second.getByTestId('settings-save').click();
  await second.getByTestId('field-error-budgetRatios').waitFor();
  // What the browser can see is caught before sending.
  await second.getByTestId('setting-budgetRatios.history').fill('0.35');
  await second.getByTestId('setting-askBurst').fill('many');
  await second.getByTestId('settings-save').click();
  await second.getByTestId('field-error-askBurst').waitFor();
  assert.equal(await second.locator('[data-testid=settings-version]').getAttribute('data-version'), String(v0 + 3), 'nothing was saved');
  await first.context().close();
  await second.context().close();
});

test('the audit events page shows the settings updates, filtered, with infinite scroll', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-admin');
  // Enough events for more than one page.
  const token = await page.evaluate(() => sessionStorage.getItem('ragchat.token'));
  for (let i = 0; i < 30; i++) {
    await gql(app.server.http, token, 'mutation($n: Int!) { updateTenantSettings(input: {summaryMaxChars: $n}) { version } }', { n: 1000 + i });
  }
  await page.goto(`${app.base}/admin/audit`);
  const rows = page.getByTestId('audit-row');
  await rows.first().waitFor();
  assert.equal(await rows.first().getAttribute('data-action'), 'tenant.settings.updated', 'newest first');
  assert.match(await rows.first().innerText(), /summaryMaxChars/, 'the metadata names the changed setting');
  await page.getByTestId('audit-action').fill('tenant.settings');
  await page.waitForFunction(() => {
    const r = [...document.querySelectorAll('[data-testid=audit-row]')];
    return r.length > 0 && r.every((e) => e.getAttribute('data-action') === 'tenant.settings.updated');
  });
  const total = Number((await page.getByTestId('audit-count').innerText()).match(/\d+/)[0]);
  assert.ok(total >= 30, `at least the 30 updates are counted (${total})`);
  const firstPage = await rows.count();
  assert.ok(firstPage < total, 'the first page is not everything');
  await app.shot(page, 'audit-events');
  // Scrolling to the end loads the next page.
  await rows.last().scrollIntoViewIfNeeded();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=audit-row]').length > n, firstPage);
  await app.shot(page, 'audit-events-scrolled');
  await page.context().close();
});
