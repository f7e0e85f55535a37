// Browser test of the admin console's model profiles screen (issue 21):
// an admin creates a profile in the form (a bound out of range is refused
// next to its field, from extensions.field), a member then finds it in
// the model picker; the admin edits it, disables it with the row's switch
// and the member's picker no longer lists it; deleting a profile removes
// its row. Every wait is for a condition.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gql, newConversation, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

const tokenOf = (page) => page.evaluate(() => sessionStorage.getItem('ragchat.token'));

/** The member's picker options once it has loaded (it lists "Other" always). */
async function pickerOptions(page) {
  const picker = page.getByTestId('model-picker');
  await picker.locator('option', { hasText: 'Other' }).waitFor({ state: 'attached' });
  return picker.locator('option').allInnerTexts();
}

test('an admin manages model profiles and the member picker follows', async () => {
  const admin = await app.page();
  admin.on('dialog', (d) => void d.accept());
  await signIn(admin, app.base, 'demo-admin');
  // A second profile that stays enabled, so that the picker is shown.
  await gql(app.server.http, await tokenOf(admin), 'mutation($in: ModelProfileInput!) { createModelProfile(input: $in) { id } }', {
    in: { name: 'Other', endpoint: 'offline', model: 'offline' },
  });

  await admin.goto(`${app.base}/admin/models`);
  await admin.getByTestId('profile-row').filter({ hasText: 'Other' }).waitFor();
  await admin.getByTestId('profile-add').click();
  const editor = admin.getByTestId('profile-editor');
  await editor.getByTestId('profile-name').fill('Console profile');
  await editor.getByTestId('profile-endpoint').selectOption('offline');
  await editor.getByTestId('profile-model').fill('offline');
  await editor.getByTestId('profile-temperatureMax').fill('3');
  await editor.getByTestId('profile-save').click();
  // The server refuses the bound and names the field; nothing is created.
  await editor.getByTestId('profile-error-temperatureMax').waitFor();
  assert.equal(await editor.getByTestId('profile-temperatureMax').getAttribute('aria-invalid'), 'true');
  await app.shot(admin, 'profile-field-error');
  await editor.getByTestId('profile-temperatureMax').fill('1.5');
  await editor.getByTestId('profile-temperatureDefault').fill('0.3');
  await editor.getByTestId('profile-priceInputPerM').fill('150000');
  await editor.getByTestId('profile-save').click();
  const row = admin.locator('[data-testid=profile-row][data-name="Console profile"]');
  await row.waitFor();
  assert.equal(await admin.getByTestId('profile-editor').count(), 0, 'the editor closes after saving');
  await app.shot(admin, 'profile-created');

  const member = await app.page();
  await signIn(member, app.base, 'demo-user');
  await newConversation(member);
  assert.ok((await pickerOptions(member)).includes('Console profile'), 'the member may choose the new profile');

  // Edit: the form shows the stored values and sends what changed.
  await row.getByTestId('profile-edit').click();
  assert.equal(await editor.getByTestId('profile-temperatureMax').inputValue(), '1.5');
  await editor.getByTestId('profile-temperatureDefault').fill('0.4');
  await editor.getByTestId('profile-save').click();
  await editor.waitFor({ state: 'detached' });
  const listed = await gql(app.server.http, await tokenOf(admin), '{ modelProfiles { name temperatureMax temperatureDefault priceInputPerM enabled } }');
  assert.deepEqual(listed.modelProfiles.find((p) => p.name === 'Console profile'), {
    name: 'Console profile', temperatureMax: 1.5, temperatureDefault: 0.4, priceInputPerM: 150000, enabled: true,
  });

  // Disable: the member's picker no longer offers it.
  await row.getByTestId('profile-toggle').click();
  await admin.locator('[data-testid=profile-row][data-name="Console profile"][data-enabled=false]').waitFor();
  await app.shot(admin, 'profile-disabled');
  await member.reload();
  assert.ok(!(await pickerOptions(member)).includes('Console profile'), 'a disabled profile is not offered');
  await app.shot(member, 'picker-without-disabled');

  // Delete removes the row.
  await row.getByTestId('profile-delete').click();
  await row.waitFor({ state: 'detached' });
  assert.equal(await admin.getByTestId('profile-row').count(), 1);
  await member.context().close();
  await admin.context().close();
});
