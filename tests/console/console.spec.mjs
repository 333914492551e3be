// Real-browser test of the inspector console (issue 6), run by tests/http/console_test.cpp:
//   node tests/console/console.spec.mjs <base-url> <api-key> <screenshot-path> <hook-port> <password>
// Debian's chromium, driven by playwright-core, opens /console and is sent to sign in
// (docs/security.md): a wrong password is refused on the page, alice's (an admin) lets
// her in, and the console shows who she is. It sees an
// incident triggered through the API appear without a reload, acknowledges it with the
// page's button and sees ACKNOWLEDGED; opens the incident view and finds the timeline and
// deliveries (who was paged, how, with what outcome), including a page to whoever is on
// call; and uses the on-call view. Then it receives a page on its own webhook (listening
// on <hook-port>), opens the page's answer link and acknowledges there, as the person
// paged, and sees in the console how. A heartbeat it pings shows as up in its table. It
// sees a maintenance window's banner with its end, and a change event on the view of an
// incident opened after it. In a storm (docs/guarantees.md#storms) it sees a grouped
// incident's alerts, firing and resolved, paged through past the first 100; pages held by
// a contact's throttle, in the incident and per channel; the bundle that carried them one
// click from each member and back; steps numbered from 1 as in the messages; a date axis
// under the on-call bar; and the views within a phone's width. Its Configuration view
// shows the org's document readably and, toggled, as JSON, with no secret in the page;
// an API error plainly; empty sections as empty. The audit log view lists alice's
// acknowledge. Then alice signs out, and bob (a responder) signs in through the OpenID
// provider of the test (tests/oidc/provider.mjs), acknowledges, sees it recorded as his,
// and is offered neither configuration nor audit. Exits 0 only if all of
// that happened; every wait is bounded, so a missing feature fails with a message instead
// of hanging.
import {chromium} from 'playwright-core';
import {createServer} from 'node:http';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

const STEP_MS = 15000;
const WHOLE_RUN_MS = 180000;
const POLICY = process.env.BELAY_CONSOLE_POLICY || 'default';
const ADMIN = 'alice';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];

const [baseUrl, apiKey, screenshotPath, hookPort, password] = process.argv.slice(2);
if (!baseUrl || !apiKey || !screenshotPath || !hookPort || !password) {
  console.error('usage: node console.spec.mjs <base-url> <api-key> <screenshot-path> <hook-port> <password>');
  process.exit(2);
}

const log = (...args) => console.log('[console.spec]', ...args);

// The whole run is bounded too: exiting closes the browser (playwright kills its child).
const watchdog = setTimeout(() => {
  console.error(`[console.spec] FAIL: the run took longer than ${WHOLE_RUN_MS / 1000} s`);
  process.exit(1);
}, WHOLE_RUN_MS);

async function api(method, path, body) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: {Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(STEP_MS),
  });
  const text = await res.text();
  return {status: res.status, text, json: () => JSON.parse(text)};
}

// Runs one named step; a failure names the step and what the page showed.
async function step(name, fn) {
  log(name);
  try {
    return await fn();
  } catch (e) {
    throw new Error(`step "${name}" failed: ${e.message.split('\n')[0]}`);
  }
}

// The webhook that belay's "hook" channel pages: every body it receives, by incident id.
const hooked = new Map();
const hook = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    try {
      const page = JSON.parse(body);
      hooked.set(page.id, page);
    } catch {}
    res.end('ok');
  });
});
await new Promise((resolve, reject) => hook.listen(Number(hookPort), '127.0.0.1', resolve).on('error', reject));

const userDataDir = mkdtempSync(join(tmpdir(), 'belay-console-chromium-'));
const pageErrors = [];
let context;
let page;
let failed = false;
try {
  context = await step('launch /usr/bin/chromium', () =>
    chromium.launchPersistentContext(userDataDir, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: {width: 1360, height: 860},
      timeout: 30000,
    }));
  page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && log('page console error:', m.text()));

  await step('open /console', async () => {
    const res = await page.goto(baseUrl + '/console', {timeout: STEP_MS});
    if (!res || res.status() !== 200) throw new Error(`GET /console answered ${res && res.status()}`);
  });

  await step('the console asks to sign in, and the sign-in page asks for the org', async () => {
    await page.locator('#login').waitFor({state: 'visible'});
    await page.locator('#login-submit').click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.locator('input[name="org"]').fill('console');
    await page.locator('button[type="submit"]').click();
    await page.locator('#sign-in-password').waitFor({state: 'visible'});
    await page.locator('#sign-in-oidc').waitFor({state: 'visible'});
  });

  await step('a wrong password is refused on the page, saying so', async () => {
    await page.locator('#sign-in-password input[name="login"]').fill('alice@example.com');
    await page.locator('#sign-in-password input[name="password"]').fill('not her password');
    await page.locator('#sign-in-password button[type="submit"]').click();
    await page.locator('.problem', {hasText: 'the login or the password is wrong'}).waitFor();
  });

  await step('alice signs in with her password and the console shows who she is', async () => {
    await page.locator('#sign-in-password input[name="password"]').fill(password);
    await page.locator('#sign-in-password button[type="submit"]').click();
    await page.waitForURL((url) => url.pathname === '/console');
    await page.locator('#console').waitFor({state: 'visible'});
    await page.locator('#whoami', {hasText: 'alice · admin · console'}).waitFor();
    const cookies = await context.cookies(baseUrl);
    const session = cookies.find((c) => c.name === 'belay_session');
    if (!session || !session.httpOnly || session.sameSite !== 'Lax')
      throw new Error(`the session cookie is ${JSON.stringify(session)}`);
    if (await page.evaluate(() => document.cookie.includes('belay_session')))
      throw new Error('the page script can read the session cookie');
  });

  // A marker on window survives only if the page is never reloaded.
  await page.evaluate(() => (window.belayNoReload = true));

  const title = `Console test <b>bold?</b> & "quotes" ${Date.now()}`;
  const incident = await step('trigger an incident through the API', async () => {
    const res = await api('POST', '/api/v1/incidents', {dedupKey: `console-${Date.now()}`, title, policy: POLICY});
    if (res.status !== 201) throw new Error(`POST /api/v1/incidents answered ${res.status}: ${res.text}`);
    return res.json().incident;
  });

  const row = page.locator(`#incidents tr[data-incident-id="${incident.id}"]`);
  await step(`see incident ${incident.id} appear in the table without a reload`, async () => {
    await row.waitFor({state: 'visible'});
    if (!(await page.evaluate(() => window.belayNoReload === true))) throw new Error('the page was reloaded');
    const shown = await row.locator('.title').textContent();
    if (shown !== title) throw new Error(`title shown as ${JSON.stringify(shown)}, expected the literal text`);
    if ((await row.locator('b').count()) !== 0) throw new Error('the title was rendered as HTML');
  });

  await step('the next step counts down in the page', async () => {
    const timer = row.locator('td.timer');
    const first = await timer.textContent();
    if (!/^in \d/.test(first)) throw new Error(`next timer shows ${JSON.stringify(first)}, expected "in …"`);
    await page.waitForFunction(
      ([id, before]) => document.querySelector(`#incidents tr[data-incident-id="${id}"] td.timer`)?.textContent !== before,
      [String(incident.id), first], {timeout: 5000});
  });

  await step('the table numbers the next step as the timeline and the messages do', async () => {
    await row.locator('td.step', {hasText: /^step 2$/}).waitFor();
  });

  await step('click Acknowledge and see ACKNOWLEDGED', async () => {
    await row.locator('button.ack').click();
    await row.locator('td.status', {hasText: 'ACKNOWLEDGED'}).waitFor({state: 'visible'});
  });

  await step('the acknowledgement reached the server, as alice: the session says who', async () => {
    const res = await api('GET', `/api/v1/incidents/${incident.id}`);
    if (res.status !== 200) throw new Error(`GET /api/v1/incidents/${incident.id} answered ${res.status}`);
    const {status, ackedBy, ackedVia} = res.json().incident;
    if (status !== 'ACKNOWLEDGED' || ackedBy !== ADMIN || ackedVia !== 'console')
      throw new Error(`server says status ${status}, ackedBy ${ackedBy}, ackedVia ${ackedVia}`);
  });

  const view = page.locator('#incident-view');
  await step('open the incident view from the row: timeline and deliveries', async () => {
    await row.locator('button.open-incident').click();
    await view.waitFor({state: 'visible'});
    await view.locator('#incident-heading', {hasText: `Incident ${incident.id}`}).waitFor();
    if ((await view.locator('.incident-title .title').textContent()) !== title)
      throw new Error('the view shows another title');
    await view.locator('.incident-timeline li[data-kind="acknowledged"]', {hasText: `by ${ADMIN}`}).waitFor();
    await view.locator('.incident-timeline li[data-kind="step_fired"]', {hasText: 'Step 1 fired'}).waitFor();
    await view.locator('table.deliveries tbody tr td.step', {hasText: 'step 1'}).first().waitFor();
    const sent = view.locator('table.deliveries tbody tr', {hasText: '#ops'});
    await sent.waitFor();
    await sent.locator('td', {hasText: 'SENT'}).waitFor();
  });

  // Working the incident from its view (docs/http.md#working-an-incident).
  const note = `Disk is at 97% <i>not html</i> ${Date.now()}`;
  await step('add a note from the incident view: the timeline shows it, by alice, as text', async () => {
    await view.locator('#note-text').fill(note);
    await view.locator('#note-form button[type=submit]').click();
    const entry = view.locator('.incident-timeline li[data-kind="note_added"]');
    await entry.waitFor();
    if (!(await entry.textContent()).includes(`Note by ${ADMIN}: ${note}`))
      throw new Error(`the note shows as ${JSON.stringify(await entry.textContent())}`);
    if ((await entry.locator('i').count()) !== 0) throw new Error('the note was rendered as HTML');
    if ((await view.locator('#note-text').inputValue()) !== '') throw new Error('the note box was not emptied');
  });

  await step('snooze the acknowledged incident for 1 h from the view: the server agrees', async () => {
    await view.locator('#snooze-for').selectOption('3600');
    await view.locator('#incident-snooze').click();
    await view.locator('.incident-timeline li[data-kind="snoozed"]', {hasText: `Snoozed by ${ADMIN}`}).waitFor();
    await view.locator('dl.facts dt', {hasText: 'Snoozed until'}).waitFor();
    const {status, snoozedUntil} = (await api('GET', `/api/v1/incidents/${incident.id}`)).json().incident;
    const ahead = Date.parse(snoozedUntil) - Date.now();
    if (status !== 'ACKNOWLEDGED' || !(ahead > 3500e3 && ahead <= 3600e3))
      throw new Error(`server says ${status}, snoozed until ${snoozedUntil}`);
  });

  await step('escalate now from the view: OPEN again, and step 2 pages at once', async () => {
    await view.locator('#incident-escalate').click();
    await view.locator('.incident-timeline li[data-kind="escalated"]', {hasText: `by ${ADMIN}`}).waitFor();
    await view.locator('.incident-timeline li[data-kind="step_fired"]', {hasText: 'Step 2 fired'}).waitFor();
    await view.locator('.incident-title .badge', {hasText: 'OPEN'}).waitFor();
    const {status, snoozedUntil} = (await api('GET', `/api/v1/incidents/${incident.id}`)).json().incident;
    if (status !== 'OPEN' || snoozedUntil !== null) throw new Error(`server says ${status}, snoozed until ${snoozedUntil}`);
    if (!(await view.locator('#incident-snooze').isDisabled())) throw new Error('Snooze is enabled on an OPEN incident');
  });

  await step('add bob as a responder from the view: he is paged now and listed as requested', async () => {
    await view.locator('#responders-users').fill('bob');
    await view.locator('#responders-message').fill('need a second pair of eyes');
    await view.locator('#responders-form button[type=submit]').click();
    await view.locator('.incident-timeline li[data-kind="responders_requested"]',
      {hasText: `${ADMIN} paged bob to help: need a second pair of eyes`}).waitFor();
    await view.locator('dl.facts dd', {hasText: 'bob (requested)'}).waitFor();
    const {responders} = (await api('GET', `/api/v1/incidents/${incident.id}`)).json();
    if (responders.length !== 1 || responders[0].user !== 'bob' || responders[0].requestedBy !== ADMIN)
      throw new Error(`server says responders ${JSON.stringify(responders)}`);
    await view.locator('table.deliveries td.step', {hasText: 'responder'}).first().waitFor();
  });

  await step('a pinged heartbeat shows in the heartbeats table as up, with its next due', async () => {
    const res = await fetch(baseUrl + '/hb/console-hb-key', {signal: AbortSignal.timeout(STEP_MS)});
    const text = await res.text();
    if (res.status !== 200 || text !== 'OK') throw new Error(`the ping answered ${res.status}: ${text}`);
    const row = page.locator('#heartbeats tr[data-heartbeat="nightly-backup"]');
    await row.locator('td.state', {hasText: 'up'}).waitFor();
    await row.locator('td.last-ping', {hasText: 'ago'}).waitFor();
    await row.locator('td.next-due', {hasText: /^in /}).waitFor();
  });

  // The on-call view: schedule "primary" has alice and bob; who is on call comes from
  // the API, and an override made on the page changes it until it is removed there.
  const card = page.locator('.schedule[data-schedule="primary"]');
  const onCallNow = await step('ask the API who is on call in "primary"', async () => {
    const res = await api('GET', '/api/v1/oncall');
    const now = res.json().oncall.find((o) => o.schedule === 'primary');
    if (!now) throw new Error('nobody is on call in "primary": ' + res.text);
    return now.user;
  });

  await step(`an incident paging "primary" shows ${onCallNow} as the person paged`, async () => {
    const res = await api('POST', '/api/v1/incidents',
      {dedupKey: `console-oncall-${Date.now()}`, title: 'Paged through a schedule', policy: 'oncall'});
    if (res.status !== 201) throw new Error(`POST /api/v1/incidents answered ${res.status}: ${res.text}`);
    const paged = res.json().incident;
    await page.locator('#incident-open-id').fill(String(paged.id));
    await page.locator('#incident-open-form button[type=submit]').click();
    await view.locator('#incident-heading', {hasText: `Incident ${paged.id}`}).waitFor();
    await view.locator('.incident-timeline li[data-kind="step_fired"]', {hasText: `paged ${onCallNow}`}).waitFor();
    const delivery = view.locator('table.deliveries tbody tr', {has: page.locator('td.person', {hasText: onCallNow})});
    await delivery.waitFor();
    await delivery.locator('td.target', {hasText: onCallNow}).waitFor();
    await page.locator('#incident-close').click();
    await view.waitFor({state: 'hidden'});
  });
  const other = onCallNow === 'alice' ? 'bob' : 'alice';

  await step(`the on-call view shows ${onCallNow} now and the next 14 days`, async () => {
    await card.locator('.oncall-now', {hasText: onCallNow}).waitFor({state: 'visible'});
    if ((await card.locator('.timeline .shift').count()) < 2)
      throw new Error('the timeline shows fewer than two shifts');
  });

  await step('the on-call bar has a date axis: a labelled tick at each of the 14 midnights', async () => {
    const ticks = card.locator('.date-axis .tick');
    await ticks.first().waitFor();
    const labels = await ticks.allTextContents();
    if (labels.length < 13 || labels.length > 14) throw new Error(`${labels.length} ticks: ${labels.join(', ')}`);
    const dates = await ticks.evaluateAll((nodes) => nodes.map((n) => new Date(n.dataset.date)));
    if (dates.some((d) => d.getHours() !== 0 || d.getMinutes() !== 0)) throw new Error('a tick is not at midnight');
    if (labels.some((l) => !/\d/.test(l))) throw new Error(`unlabelled ticks: ${labels.join(', ')}`);
  });

  await step(`add an override for ${other} from the page`, async () => {
    // datetime-local takes the browser's local time: one hour ago to one hour ahead.
    const local = (ms) => {
      const d = new Date(ms);
      return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
    };
    const form = card.locator('form.override-form');
    await form.locator('input[name=user]').fill(other);
    await form.locator('input[name=start]').fill(local(Date.now() - 3600000));
    await form.locator('input[name=end]').fill(local(Date.now() + 3600000));
    await form.locator('button[type=submit]').click();
    await card.locator('.overrides li').first().waitFor({state: 'visible'});
    await card.locator('.oncall-now', {hasText: other}).waitFor({state: 'visible'});
  });

  await step('the server agrees, then the override is removed from the page', async () => {
    const res = await api('GET', '/api/v1/oncall');
    const now = res.json().oncall.find((o) => o.schedule === 'primary');
    if (!now || now.user !== other) throw new Error('server says on call: ' + res.text);
    await card.locator('.overrides li button').first().click();
    await card.locator('.overrides li').first().waitFor({state: 'detached'});
    const after = (await api('GET', '/api/v1/oncall')).json().oncall.find((o) => o.schedule === 'primary');
    await card.locator('.oncall-now', {hasText: after.user}).waitFor({state: 'visible'});
    const listed = await api('GET', '/api/v1/schedules/primary/overrides');
    if (listed.json().overrides.length !== 0) throw new Error('still listed: ' + listed.text);
  });

  // Answering the page: carol is paged on the webhook, whose body carries the answer link.
  const paged = await step('trigger an incident that pages carol on the webhook', async () => {
    const res = await api('POST', '/api/v1/incidents',
      {dedupKey: `console-answer-${Date.now()}`, title: 'Answer me from the page', policy: 'answer'});
    if (res.status !== 201) throw new Error(`POST /api/v1/incidents answered ${res.status}: ${res.text}`);
    return res.json().incident;
  });
  const ackUrl = await step('the webhook receives the page with its ackUrl', async () => {
    const until = Date.now() + STEP_MS;
    while (!hooked.has(paged.id) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const body = hooked.get(paged.id);
    if (!body) throw new Error('no page arrived on the webhook');
    if (!body.ackUrl || !body.ackUrl.startsWith(baseUrl + '/a/')) throw new Error(`ackUrl is ${body.ackUrl}`);
    return body.ackUrl;
  });
  const answerPage = await context.newPage();
  answerPage.setDefaultTimeout(STEP_MS);
  answerPage.on('pageerror', (e) => pageErrors.push(e.message));
  await step('open the answer page: the incident, who was paged, the buttons', async () => {
    const res = await answerPage.goto(ackUrl, {timeout: STEP_MS});
    if (!res || res.status() !== 200) throw new Error(`GET ${ackUrl} answered ${res && res.status()}`);
    await answerPage.locator('h1', {hasText: 'Answer me from the page'}).waitFor();
    await answerPage.locator('dd', {hasText: 'carol'}).first().waitFor();
    const before = (await api('GET', `/api/v1/incidents/${paged.id}`)).json().incident;
    if (before.status !== 'OPEN') throw new Error(`opening the page made it ${before.status}`);
  });
  await step('acknowledge on the answer page and see the confirmation', async () => {
    await answerPage.locator('button[value="ack"]').click();
    await answerPage.locator('[role="status"]', {hasText: 'Acknowledged by carol'}).waitFor();
    const {status, ackedBy, ackedVia} = (await api('GET', `/api/v1/incidents/${paged.id}`)).json().incident;
    if (status !== 'ACKNOWLEDGED' || ackedBy !== 'carol' || ackedVia !== 'link')
      throw new Error(`server says ${status} by ${ackedBy} via ${ackedVia}`);
  });
  await answerPage.close();
  await step('the console says who acknowledged and how', async () => {
    await page.locator('#incident-open-id').fill(String(paged.id));
    await page.locator('#incident-open-form button[type=submit]').click();
    await view.locator('#incident-heading', {hasText: `Incident ${paged.id}`}).waitFor();
    await view.locator('.incident-timeline li[data-kind="acknowledged"]', {hasText: 'by carol via link'}).waitFor();
    await view.locator('dd', {hasText: 'by carol via link'}).waitFor();
    await page.locator('#incident-close').click();
  });

  // Maintenance (docs/guarantees.md#maintenance-windows): a banner with the window's end while it is
  // active, gone once the window is ended early.
  await step('a maintenance window shows a banner with its end, until it is ended', async () => {
    const end = new Date(Date.now() + 3600000).toISOString();
    const res = await api('POST', '/api/v1/maintenance', {policy: 'answer', end, reason: 'console test'});
    if (res.status !== 201) throw new Error(`POST /api/v1/maintenance answered ${res.status}: ${res.text}`);
    const m = res.json().maintenance;
    const banner = page.locator(`#maintenance-banner .window[data-id="${m.id}"]`);
    await banner.waitFor({state: 'visible'});
    const text = await banner.textContent();
    if (!text.includes('policy answer') || !text.includes('until') || !text.includes('console test'))
      throw new Error(`the banner says ${JSON.stringify(text)}`);
    const shownEnd = await banner.locator('time').getAttribute('datetime');
    if (Date.parse(shownEnd) !== Date.parse(m.end)) throw new Error(`the banner ends at ${shownEnd}, not ${m.end}`);
    const ended = await api('DELETE', `/api/v1/maintenance/${m.id}`);
    if (ended.status !== 204) throw new Error(`DELETE answered ${ended.status}`);
    await page.locator('#maintenance-banner').waitFor({state: 'hidden'});
  });

  await step('a change event shows on the view of an incident opened after it', async () => {
    const res = await fetch(baseUrl + '/v2/change/enqueue', {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({routing_key: 'console-routing', payload: {summary: 'Deployed web 1.2.3', source: 'ci'},
                            links: [{href: 'https://ci.example/builds/7', text: 'build 7'}]}),
      signal: AbortSignal.timeout(STEP_MS),
    });
    if (res.status !== 202) throw new Error(`POST /v2/change/enqueue answered ${res.status}`);
    const made = await api('POST', '/api/v1/incidents',
      {dedupKey: `console-change-${Date.now()}`, title: 'After the deploy', policy: POLICY});
    if (made.status !== 201) throw new Error(`POST /api/v1/incidents answered ${made.status}: ${made.text}`);
    const inc = made.json().incident;
    await page.locator('#incident-open-id').fill(String(inc.id));
    await page.locator('#incident-open-form button[type=submit]').click();
    await view.locator('#incident-heading', {hasText: `Incident ${inc.id}`}).waitFor();
    const change = view.locator('.incident-changes li', {hasText: 'Deployed web 1.2.3'});
    await change.waitFor();
    const href = await change.locator('a.change-link').getAttribute('href');
    if (href !== 'https://ci.example/builds/7') throw new Error(`the change links to ${href}`);
    await page.locator('#incident-close').click();
  });


  // Grouping (docs/guarantees.md#alerts-and-grouping): 120 alerts of one alertname make one
  // incident; 20 resolve. The view pages through all of them and tells firing from resolved.
  const grouped = await step('120 grouped alerts, 20 of them resolved, make one incident', async () => {
    const post = async (status, from, to) => {
      const alerts = [];
      for (let n = from; n < to; n++)
        alerts.push({status, labels: {alertname: 'DiskFull', instance: `db-${n}`, severity: 'warning'},
                     annotations: {summary: `Disk full on db-${n}`}, fingerprint: `disk-${n}`});
      const res = await fetch(baseUrl + '/api/v1/integrations/alertmanager', {
        method: 'POST',
        headers: {Authorization: 'Bearer console-prom', 'Content-Type': 'application/json'},
        body: JSON.stringify({version: '4', status, receiver: 'belay', alerts}),
        signal: AbortSignal.timeout(STEP_MS),
      });
      if (res.status !== 200) throw new Error(`alertmanager answered ${res.status}: ${await res.text()}`);
    };
    await post('firing', 0, 120);
    await post('resolved', 0, 20);
    const list = (await api('GET', '/api/v1/incidents?limit=5')).json().incidents;
    const inc = list.find((i) => i.dedupKey === 'prom:DiskFull');
    if (!inc || inc.alertCount !== 120 || inc.firingCount !== 100)
      throw new Error('the grouped incident is ' + JSON.stringify(inc));
    return inc;
  });

  await step('the grouped incident shows its alerts: 100 firing of 120, more on demand', async () => {
    await page.locator('#incident-open-id').fill(String(grouped.id));
    await page.locator('#incident-open-form button[type=submit]').click();
    await view.locator('#incident-heading', {hasText: `Incident ${grouped.id}`}).waitFor();
    await view.locator('.alert-count', {hasText: '100 firing of 120'}).waitFor();
    const rows = view.locator('table.alerts tbody tr');
    await rows.first().waitFor();
    if ((await rows.count()) !== 100) throw new Error(`${await rows.count()} alerts before "Show more"`);
    await view.locator('button.more-alerts').click();
    await page.waitForFunction(() => document.querySelectorAll('#incident-view table.alerts tbody tr').length === 120);
    const resolved = await view.locator('table.alerts tbody tr[data-status="RESOLVED"]').count();
    const firing = await view.locator('table.alerts tbody tr[data-status="FIRING"] .badge', {hasText: 'FIRING'}).count();
    if (resolved !== 20 || firing !== 100) throw new Error(`${firing} firing and ${resolved} resolved shown`);
    await view.locator('table.alerts tbody tr[data-alert-key="disk-3"] .badge', {hasText: 'RESOLVED'}).waitFor();
    if (await view.locator('button.more-alerts').count()) throw new Error('"Show more" is still offered');
    await view.locator('.incident-timeline li.day').first().waitFor();
  });

  // Throttles and bundles (docs/guarantees.md#storms): four incidents page #storm on a
  // channel that lets one message through every 25 s. One goes alone, the other three
  // wait, held, and go as one bundle that also names the first (still open).
  const storm = await step('four incidents page one throttled contact', async () => {
    const ids = [];
    for (let n = 0; n < 4; n++) {
      const res = await api('POST', '/api/v1/incidents',
        {dedupKey: `console-storm-${n}-${Date.now()}`, title: `Storm ${n}`, policy: 'storm'});
      if (res.status !== 201) throw new Error(`POST /api/v1/incidents answered ${res.status}: ${res.text}`);
      ids.push(res.json().incident.id);
    }
    return ids;
  });

  await step('the channel shows its throttled contact, the pages waiting and when it opens', async () => {
    const contact = page.locator('.channel[data-channel="chat"] ul.throttled li[data-target="#storm"]');
    await contact.locator('.waiting', {hasText: '3 waiting'}).waitFor();
    await contact.locator('.due', {hasText: /^in \d/}).waitFor();
  });

  // Which page went alone depends on which step committed first, not on the order of the
  // POSTs (the four steps fire concurrently; under load the second has gone first): that
  // incident is storm[0] from here on.
  await step('one page went alone, the other three wait', async () => {
    const alone = [];
    for (const id of storm) {
      const res = await api('GET', `/api/v1/incidents/${id}`);
      if (res.json().deliveries.some((d) => d.status === 'SENT')) alone.push(id);
    }
    if (alone.length !== 1) throw new Error(`${alone.length} of the four pages went alone`);
    storm.splice(storm.indexOf(alone[0]), 1);
    storm.unshift(alone[0]);
  });

  await step('a held page shows as held by the throttle, with when it opens', async () => {
    await page.locator('#incident-open-id').fill(String(storm[1]));
    await page.locator('#incident-open-form button[type=submit]').click();
    await view.locator('#incident-heading', {hasText: `Incident ${storm[1]}`}).waitFor();
    const held = view.locator('table.deliveries tbody tr', {has: page.locator('td.status', {hasText: 'held by throttle'})});
    await held.waitFor();
    await held.locator('td.next', {hasText: /opens in \d/}).waitFor();
    await held.locator('td.status .badge', {hasText: 'PENDING'}).waitFor();
  });

  const bundleView = page.locator('#bundle-view');
  await step('once the throttle opens, the page went in a bundle: one click to its members', async () => {
    const sent = view.locator('table.deliveries tbody tr', {has: page.locator('td.status', {hasText: 'SENT'})});
    await sent.locator('button.open-bundle').waitFor({timeout: 45000});
    await sent.locator('td.step', {hasText: /^step 1$/}).waitFor();
    await sent.locator('button.open-bundle').click();
    await bundleView.waitFor({state: 'visible'});
    for (const id of storm.slice(1))
      await bundleView.locator(`.bundle-incidents li[data-incident-id="${id}"]`).waitFor();
    const carried = bundleView.locator(`.bundle-incidents li[data-incident-id="${storm[0]}"]`);
    await carried.locator('.sub', {hasText: 'carried over'}).waitFor();
  });

  await step('a member opens from the bundle, and its own page links back to the same bundle', async () => {
    const bundleId = await bundleView.getAttribute('data-bundle-id');
    await bundleView.locator(`.bundle-incidents li[data-incident-id="${storm[3]}"] button.open-incident`).click();
    await view.locator('#incident-heading', {hasText: `Incident ${storm[3]}`}).waitFor();
    await view.locator('table.deliveries button.open-bundle', {hasText: `bundle ${bundleId}`}).waitFor();
    const other = await api('GET', `/api/v1/bundles/${bundleId}`);
    if (other.status !== 200 || other.json().incidents.length !== 4) throw new Error(`the bundle is ${other.text}`);
  });

  // The configuration view (docs/http.md#console-configuration): the org's document laid
  // out to read, read-only, and no secret of it in the page. SECRETS are the plain values
  // tests/http/console_test.cpp provisions: channel secrets and every key.
  const SECRETS = ['console-hook-secret', 'console-slack', 'console-routing', 'console-prom',
    'console-hb-key', 'console-oidc-secret', password, apiKey];
  const configView = page.locator('#config-view');
  const configCard = (kind, name) => configView.locator(`.config-card.${kind}[data-name="${name}"]`);
  const openConfig = async () => {
    await page.locator('#nav-config').click();
    await configView.waitFor({state: 'visible'});
  };

  await step('the Configuration view shows users, schedules, policies, channels, integrations, heartbeats', async () => {
    await openConfig();
    await configView.locator('#config-heading', {hasText: 'Configuration of console'}).waitFor();
    const alice = configCard('user', 'alice');
    await alice.locator('.contacts li[data-contact="l"]', {hasText: 'log → alice'}).waitFor();
    await alice.locator('.contacts li[data-contact="phone"]', {hasText: 'log → +15550100'}).waitFor();
    await alice.locator('.rules li', {hasText: 'At once: l'}).waitFor();
    for (const user of ['bob', 'carol']) await configCard('user', user).waitFor();
    const layer = configCard('schedule-config', 'primary').locator('li[data-layer="days"]');
    await layer.locator('dd', {hasText: 'alice → bob'}).waitFor();
    await layer.locator('dd', {hasText: /^daily: 1 day a turn, from 2026-01-01T09:00/}).waitFor();
    await configCard('policy', 'answer').locator('.steps li', {hasText: 'Step 1, at once: user carol'}).waitFor();
    await configCard('policy', 'answer').locator('.steps li', {hasText: 'Step 2, after 10 min: log → lead'}).waitFor();
    await configCard('policy', 'oncall').locator('.steps li', {hasText: 'whoever is on call in primary'}).waitFor();
    const chat = configCard('channel-config', 'chat');
    await chat.locator('dd', {hasText: /^1 per 25 s$/}).waitFor();
    await chat.locator('dt:text-is("Signing secret") + dd', {hasText: /^set$/}).waitFor();
    await chat.locator('dt:text-is("Bundle") + dd', {hasText: /^yes$/}).waitFor();
    await configCard('channel-config', 'hook').locator('dt:text-is("Secret") + dd', {hasText: /^set$/}).waitFor();
    const prom = configCard('integration', 'prom');
    await prom.locator('dd', {hasText: 'by labels.alertname'}).waitFor();
    await prom.locator('dt:text-is("Key") + dd', {hasText: /^set$/}).waitFor();
    await configCard('integration', 'deploys').locator('dd', {hasText: /^none: /}).waitFor();
    await configCard('heartbeat-config', 'nightly-backup').locator('dd', {hasText: /^1 d$/}).waitFor();
    await configView.locator('dd', {hasText: /^1 key set$/}).waitFor();
    if (await configView.locator('input, textarea, select, form').count())
      throw new Error('the view offers editing: it is read-only (docs/http.md#console-configuration)');
  });

  const secretsInPage = () => page.evaluate((secrets) => {
    const html = document.documentElement.outerHTML;
    const text = document.body.innerText + '\n' + document.body.textContent;
    const inputs = [...document.querySelectorAll('input, textarea')].map((i) => i.value).join('\n');
    return secrets.filter((s) => html.includes(s) || text.includes(s) || inputs.includes(s));
  }, SECRETS);

  await step('no secret or key is anywhere in the page, its text or its DOM', async () => {
    const found = await secretsInPage();
    if (found.length) throw new Error(`the page holds ${found.join(', ')}`);
  });

  await step('the raw JSON toggle shows the document as GET /api/v1/config returned it, secrets "<set>"', async () => {
    const res = await api('GET', '/api/v1/config');
    if (res.status !== 200) throw new Error(`GET /api/v1/config answered ${res.status}: ${res.text}`);
    await page.locator('#config-raw-toggle').click();
    const raw = page.locator('#config-raw');
    await raw.waitFor({state: 'visible'});
    if (!(await page.locator('#config-body').isHidden())) throw new Error('the readable view stays beside the JSON');
    const shown = await raw.textContent();
    if (JSON.stringify(JSON.parse(shown)) !== JSON.stringify(res.json()))
      throw new Error('the JSON shown is not the document returned');
    // As the node wrote it, numbers included: 30.0, not 30.
    for (const field of ['"secret": "<set>"', '"signingSecret": "<set>"', '"key": "<set>"',
      '"apiKeys": [\n        "<set>"\n      ]', '"retryBaseSeconds": 30.0'])
      if (!shown.includes(field)) throw new Error(`the JSON lacks ${field}`);
    const found = await secretsInPage();
    if (found.length) throw new Error(`with the JSON shown, the page holds ${found.join(', ')}`);
    await page.locator('#config-raw-toggle').click();
    await page.locator('#config-body').waitFor({state: 'visible'});
  });

  await step('an error from the API is shown plainly, and empty sections say so', async () => {
    const answer = (status, body) => (route) =>
      route.fulfill({status, contentType: 'application/json', body: JSON.stringify(body)});
    await page.route('**/api/v1/config', answer(503, {error: {code: 'unavailable', message: 'the database is unreachable'}}));
    await openConfig();
    await page.locator('#config-error', {hasText: 'Configuration: the database is unreachable (HTTP 503)'}).waitFor();
    if ((await page.locator('#config-body .config-card').count()) !== 0) throw new Error('the old document stays on show');
    await page.unroute('**/api/v1/config');
    const empty = {name: 'console', apiKeys: [], channels: [], users: [], schedules: [], policies: [],
      heartbeats: [], integrations: []};
    await page.route('**/api/v1/config', answer(200, {orgs: [empty]}));
    await openConfig();
    for (const text of ['No users.', 'No schedules.', 'No escalation policies.', 'No channels.',
      'No integrations.', 'No heartbeat monitors.'])
      await configView.locator('.config-section .empty', {hasText: text}).waitFor();
    if ((await page.locator('#config-error').textContent()) !== '') throw new Error('the error stays after a good answer');
    await page.unroute('**/api/v1/config');
    await openConfig();
    await configCard('user', 'alice').waitFor();
  });

  await step('on a phone the configuration view fits the screen, then it closes', async () => {
    await page.setViewportSize({width: 390, height: 844});
    await configView.scrollIntoViewIfNeeded();
    const over = await configView.evaluate((view) => {
      const width = document.documentElement.clientWidth;
      return Math.max(...[view, ...view.querySelectorAll('*')].map((n) => n.getBoundingClientRect().right - width));
    });
    if (over > 1) throw new Error(`the configuration view runs ${Math.round(over)} px past a 390 px screen`);
    await page.screenshot({path: screenshotPath.replace(/(\.png)?$/, '-config-phone.png'), fullPage: true});
    await page.setViewportSize({width: 1360, height: 860});
    await page.locator('#config-close').click();
    await configView.waitFor({state: 'hidden'});
    if ((await page.locator('#config-body').textContent()) !== '') throw new Error('the document stays in the page once closed');
  });

  await step('on a phone the incident and bundle views fit the screen', async () => {
    await page.setViewportSize({width: 390, height: 844});
    for (const id of ['#incident-view', '#bundle-view', '.channel[data-channel="chat"]']) {
      const over = await page.locator(id).evaluate((node) =>
        node.getBoundingClientRect().right - document.documentElement.clientWidth);
      if (over > 1) throw new Error(`${id} runs ${Math.round(over)} px past a 390 px screen`);
    }
    await page.screenshot({path: screenshotPath.replace(/(\.png)?$/, '-phone.png'), fullPage: true});
    await page.setViewportSize({width: 1360, height: 860});
  });

  await step('the audit log view lists alice\'s acknowledge', async () => {
    await page.locator('#nav-audit').click();
    await page.locator('#audit-view').waitFor({state: 'visible'});
    await page.locator(`#audit tr[data-action="incident.ack"]`, {hasText: 'alice'}).first().waitFor();
    await page.locator(`#audit tr[data-action="session.sign_in_failed"]`, {hasText: 'alice@example.com'}).waitFor();
    await page.locator('#audit-close').click();
  });

  await step('sign out: the console asks to sign in again, and the old cookie is worth nothing', async () => {
    const before = (await context.cookies(baseUrl)).find((c) => c.name === 'belay_session');
    await page.locator('#sign-out').click();
    await page.locator('#login').waitFor({state: 'visible'});
    const res = await fetch(baseUrl + '/api/v1/me', {headers: {Cookie: `belay_session=${before.value}`}});
    if (res.status !== 401) throw new Error(`the signed-out session still answers ${res.status}`);
  });

  await step('bob signs in through the OpenID provider', async () => {
    await page.goto(baseUrl + '/login?org=console&next=%2Fconsole');
    await page.locator('#sign-in-oidc').click();
    await page.waitForURL((url) => url.pathname === '/console' && url.origin === baseUrl);
    await page.locator('#whoami', {hasText: 'bob · responder · console'}).waitFor();
    if (!(await page.locator('#nav-config').isHidden()) || !(await page.locator('#nav-audit').isHidden()))
      throw new Error('a responder is offered the configuration or the audit log');
  });

  await step('bob acknowledges from the console, and the server records bob', async () => {
    const res = await api('POST', '/api/v1/incidents', {dedupKey: `console-bob-${Date.now()}`, title: 'For bob', policy: POLICY});
    if (res.status !== 201) throw new Error(`POST /api/v1/incidents answered ${res.status}: ${res.text}`);
    const {id} = res.json().incident;
    const bobRow = page.locator(`#incidents tr[data-incident-id="${id}"]`);
    await bobRow.locator('button.ack').click();
    await bobRow.locator('td.status', {hasText: 'ACKNOWLEDGED'}).waitFor();
    const {ackedBy, ackedVia} = (await api('GET', `/api/v1/incidents/${id}`)).json().incident;
    if (ackedBy !== 'bob' || ackedVia !== 'console') throw new Error(`server says by ${ackedBy} via ${ackedVia}`);
  });

  if (pageErrors.length) throw new Error('uncaught errors in the page: ' + pageErrors.join('; '));

  await step(`save a screenshot to ${screenshotPath}`, () => page.screenshot({path: screenshotPath, fullPage: true}));
  log('PASS');
} catch (e) {
  failed = true;
  console.error('[console.spec] FAIL:', e.message);
  if (page) {
    const state = await page.locator('#connection').getAttribute('title', {timeout: 1000}).catch(() => null);
    const text = await page.locator('#connection-text').textContent({timeout: 1000}).catch(() => null);
    console.error(`[console.spec] page connection state: ${text} (${state})`);
    const notice = await page.locator('#notice').textContent({timeout: 1000}).catch(() => null);
    if (notice) console.error(`[console.spec] page notice: ${notice}`);
    if (pageErrors.length) console.error('[console.spec] page errors:', pageErrors.join('; '));
    const failurePath = screenshotPath.replace(/(\.png)?$/, '-failure.png');
    await page.screenshot({path: failurePath, fullPage: true, timeout: 5000})
      .then(() => console.error(`[console.spec] screenshot of the failure: ${failurePath}`))
      .catch(() => {});
  }
} finally {
  await context?.close().catch(() => {});
  rmSync(userDataDir, {recursive: true, force: true});
  hook.close();
  clearTimeout(watchdog);
}
process.exit(failed ? 1 : 0);
