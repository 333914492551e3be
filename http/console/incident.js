// The incident view (docs/http.md#inspector): one incident's facts, its alerts, its
// timeline and its deliveries — who was paged, by which contact, with what outcome, held by
// a throttle or sent in a bundle — opened from the incidents table or by id (resolved
// incidents have no actor, so no row), and kept fresh while it is open. A bundle's view
// lists the incidents one message carried (docs/http.md#bundles). Steps are numbered from
// 1 here as in every message belay sends; the API counts them from 0. Built on
// console.js's helpers; data reaches the page as text only.
'use strict';

(() => {
  const {el, api, problem, localTime, duration, stepLabel, Unauthorized} = window.belayConsole;
  const REFRESH_MS = 3000;
  const $ = (id) => document.getElementById(id);

  let openId = null;
  let refreshTimer = null;
  let shown = ''; // the last answer drawn: a refresh that changes nothing redraws nothing
  // Alerts past the first page, loaded with "Show more" and kept across refreshes.
  let moreAlerts = [];
  let alertsCursor = null;

  async function open(id) {
    openId = String(id);
    shown = '';
    moreAlerts = [];
    alertsCursor = null;
    $('incident-view').hidden = false;
    $('incident-error').textContent = '';
    await load();
    $('incident-view').scrollIntoView({block: 'nearest'});
    clearInterval(refreshTimer);
    refreshTimer = setInterval(load, REFRESH_MS);
  }

  function close() {
    openId = null;
    clearInterval(refreshTimer);
    $('incident-view').hidden = true;
  }

  async function load() {
    const id = openId;
    if (!id) return;
    try {
      const res = await api(`/api/v1/incidents/${encodeURIComponent(id)}`);
      if (id !== openId) return;
      if (!res.ok) {
        $('incident-error').textContent = `Incident ${id}: ${await problem(res)}`;
        $('incident-body').replaceChildren();
        shown = '';
        return;
      }
      const text = await res.text();
      if (id !== openId || text === shown) return;
      shown = text;
      $('incident-error').textContent = '';
      draw(JSON.parse(text));
    } catch (e) {
      if (!(e instanceof Unauthorized)) $('incident-error').textContent = `Incident ${id}: ${e.message}`;
    }
  }

  const when = (text) => (text ? localTime(Date.parse(text)) : '—');

  // ---- working the incident (docs/http.md#working-an-incident) ------------------------


  // POSTs one action with `via: console`; on success the view reloads at once.
  async function act(action, body = {}) {
    const id = openId;
    if (!id) return false;
    try {
      const res = await api(`/api/v1/incidents/${encodeURIComponent(id)}/${action}`,
        {method: 'POST', body: {...body, via: 'console'}});
      if (!res.ok) {
        $('incident-error').textContent = `Incident ${id}: ${await problem(res)}`;
        return false;
      }
      $('incident-error').textContent = '';
      shown = '';
      await load();
      return true;
    } catch (e) {
      if (!(e instanceof Unauthorized)) $('incident-error').textContent = `Incident ${id}: ${e.message}`;
      return false;
    }
  }

  // Only what the incident's state allows is enabled; the server decides in the end.
  function drawActions(inc) {
    const resolved = inc.status === 'RESOLVED';
    $('incident-escalate').disabled = resolved || inc.status === 'EXHAUSTED';
    $('incident-snooze').disabled = inc.status !== 'ACKNOWLEDGED';
    $('reassign-form').querySelector('button').disabled = resolved;
    $('merge-form').querySelector('button').disabled = resolved;
    if (document.activeElement !== $('incident-priority')) $('incident-priority').value = inc.priority || '';
  }

  $('note-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = $('note-text').value.trim();
    if (!text) return;
    if (await act('notes', {text})) $('note-text').value = '';
  });
  $('incident-escalate').addEventListener('click', () => act('escalate'));
  $('incident-snooze').addEventListener('click', () =>
    act('snooze', {seconds: Number($('snooze-for').value)}));
  $('incident-priority').addEventListener('change', () =>
    act('priority', {priority: $('incident-priority').value || null}));
  const names = (text) => text.split(',').map((n) => n.trim()).filter(Boolean);
  $('responders-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const users = names($('responders-users').value);
    if (!users.length) return;
    const message = $('responders-message').value.trim();
    if (await act('responders', message ? {users, message} : {users})) {
      $('responders-users').value = '';
      $('responders-message').value = '';
    }
  });
  $('subscribe-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const users = names($('subscribe-users').value);
    if (users.length && await act('subscribers', {users})) $('subscribe-users').value = '';
  });
  $('merge-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const into = $('merge-into').value.trim();
    if (/^\d+$/.test(into) && await act('merge', {into: Number(into)})) $('merge-into').value = '';
  });
  $('status-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const message = $('status-message').value.trim();
    if (message && await act('status-updates', {message})) $('status-message').value = '';
  });
  $('reassign-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = $('reassign-name').value.trim();
    if (name && await act('reassign', {[$('reassign-kind').value]: name})) $('reassign-name').value = '';
  });

  function draw({incident: inc, timeline, deliveries, changes = [], alerts = [], alertsNext = null,
    responders = [], subscribers = [], mergedInto = null}) {
    const people = pagedPeople(timeline);
    if (!moreAlerts.length) alertsCursor = alertsNext;
    $('incident-heading').textContent = `Incident ${inc.id}`;
    drawActions(inc);
    $('incident-body').replaceChildren(
      el('p', {className: 'incident-title'},
        el('span', {className: 'title'}, inc.title),
        el('span', {className: `sev sev-${inc.severity}`}, inc.severity),
        el('span', {className: `badge status-${inc.status}`}, inc.status)),
      facts(inc, responders, subscribers),
      mergedInto ? el('p', {className: 'merged-into'}, 'Merged into ',
        el('button', {type: 'button', className: 'link open-incident', onclick: () => open(mergedInto)},
          `incident #${mergedInto}`)) : '',
      el('h3', {}, 'Alerts ', el('span', {className: 'count alert-count'},
        `(${inc.firingCount ?? 0} firing of ${inc.alertCount ?? alerts.length})`)),
      alertTable(mergeAlerts(alerts, moreAlerts)),
      alertsCursor ? el('button', {type: 'button', className: 'quiet more-alerts', onclick: loadMoreAlerts},
        'Show more alerts') : '',
      el('h3', {}, 'Timeline'),
      el('ol', {className: 'incident-timeline'}, ...withDays(timeline)),
      el('h3', {}, 'Deliveries'),
      deliveries.length ? deliveryTable(deliveries, people) : el('p', {className: 'empty'}, 'No deliveries yet.'),
      el('h3', {}, 'Changes in the hour before'),
      changes.length ? el('ul', {className: 'incident-changes'}, ...changes.map(changeItem))
        : el('p', {className: 'empty'}, 'No change events.'));
  }

  // The first page of alerts comes with every refresh; pages loaded since follow it, an
  // alert that moved into the first page shown once.
  function mergeAlerts(first, more) {
    const seen = new Set(first.map((a) => a.key));
    return first.concat(more.filter((a) => !seen.has(a.key)));
  }

  async function loadMoreAlerts() {
    const id = openId;
    if (!id || !alertsCursor) return;
    try {
      const res = await api(`/api/v1/incidents/${encodeURIComponent(id)}/alerts?after=${encodeURIComponent(alertsCursor)}`);
      if (id !== openId) return;
      if (!res.ok) {
        $('incident-error').textContent = `Alerts of incident ${id}: ${await problem(res)}`;
        return;
      }
      const page = await res.json();
      moreAlerts = moreAlerts.concat(page.alerts);
      alertsCursor = page.next;
      shown = '';
      await load();
    } catch (e) {
      if (!(e instanceof Unauthorized)) $('incident-error').textContent = `Alerts of incident ${id}: ${e.message}`;
    }
  }

  function alertTable(alerts) {
    if (!alerts.length) return el('p', {className: 'empty'}, 'No alerts.');
    const head = ['Alert', 'Status', 'Severity', 'First seen', 'Last seen', 'Events'];
    return el('div', {className: 'table-scroll'}, el('table', {className: 'grid alerts'},
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
      el('tbody', {}, ...alerts.map((a) => el('tr', {dataset: {alertKey: a.key, status: a.status}},
        el('td', {className: 'alert'}, el('span', {className: 'title'}, a.title), el('span', {className: 'sub'}, a.key)),
        el('td', {}, el('span', {className: `badge alert-${a.status}`}, a.status)),
        el('td', {}, el('span', {className: `sev sev-${a.severity}`}, a.severity)),
        el('td', {className: 'nowrap'}, when(a.firstSeenAt)),
        el('td', {className: 'nowrap'}, when(a.lastSeenAt)),
        el('td', {className: 'num'}, a.eventCount))))));
  }

  // A change event (docs/guarantees.md#change-events): when, what, from where, and its links.
  function changeItem(c) {
    return el('li', {dataset: {changeId: String(c.id)}},
      el('time', {dateTime: c.timestamp}, when(c.timestamp)), ' ',
      el('span', {className: 'title'}, c.summary),
      c.source ? el('span', {className: 'sub'}, ` from ${c.source}`) : null,
      ...(c.links || []).filter((l) => /^https?:\/\//.test(l.href)).map((l) =>
        el('a', {href: l.href, rel: 'noopener noreferrer', target: '_blank', className: 'change-link'}, l.text || l.href)));
  }

  // " by alice via sms": who answered and how (api, console, link, sms, voice, slack, …).
  const answeredBy = (by, via) => `${by ? ' by ' + by : ''}${via ? ' via ' + via : ''}`;

  const subscriberName = (s) => (s.user ? s.user : `${s.channel} ${s.to}`);

  function facts(inc, responders = [], subscribers = []) {
    const rows = [
      ['Priority', inc.priority || null],
      ['Dedup key', inc.dedupKey], ['Policy', inc.policy],
      ['Assigned to', inc.assignedTo && !inc.assignedTo.policy
        ? (inc.assignedTo.user ? `user ${inc.assignedTo.user}` : `schedule ${inc.assignedTo.schedule}`) : null],
      ['Snoozed until', inc.snoozedUntil ? when(inc.snoozedUntil) : null],
      ['Next step', inc.status === 'OPEN' ? stepLabel(inc.currentStep, inc.loop) : null],
      ['Alerts', inc.alertCount > 1 ? `${inc.firingCount} firing of ${inc.alertCount}` : null],
      ['Events', inc.eventCount],
      ['Opened', when(inc.createdAt)], ['Last event', when(inc.lastSeenAt)],
      ['Next step at', inc.nextFireAt ? when(inc.nextFireAt) : null],
      ['Maintenance', inc.inMaintenance ? `held until ${when(inc.maintenanceUntil)}` : null],
      ['Reopened', inc.reopenCount ? `${inc.reopenCount} ${inc.reopenCount === 1 ? 'time' : 'times'}` : null],
      ['Acknowledged', inc.ackedAt ? `${when(inc.ackedAt)}${answeredBy(inc.ackedBy, inc.ackedVia)}` : null],
      ['Resolved', inc.resolvedAt ? `${when(inc.resolvedAt)}${answeredBy(inc.resolvedBy, inc.resolvedVia)}` : null],
      ['Exhausted', inc.exhaustedAt ? when(inc.exhaustedAt) : null],
      ['Responders', responders.length ? responders.map((r) => `${r.user} (${r.state})`).join(', ') : null],
      ['Subscribers', subscribers.length ? subscribers.map(subscriberName).join(', ') : null],
    ].filter(([, value]) => value !== null && value !== undefined);
    return el('dl', {className: 'facts'}, ...rows.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, value)]));
  }

  // Who each page was for: step_fired entries name the person behind every page that went
  // through a user or a schedule, keyed here by the delivery's loop, step, channel and address.
  const pageKey = (loop, step, channel, to) => JSON.stringify([loop, step, channel, to]);
  function pagedPeople(timeline) {
    const people = new Map();
    for (const entry of timeline) {
      if (entry.kind !== 'step_fired' || !entry.detail.paged) continue;
      for (const p of entry.detail.paged)
        people.set(pageKey(entry.detail.loop, entry.detail.step, p.channel, p.to), p);
    }
    return people;
  }

  const after = (seconds) => (seconds > 0 ? `after ${duration(seconds * 1000)}` : 'at once');

  // One line per entry, in words; fields this page does not know are shown as they come.
  function describe({kind, detail: d}) {
    switch (kind) {
      case 'created': return 'Opened';
      case 'duplicate': return `Duplicate event (${d.eventCount} events in all)`;
      case 'step_fired': {
        const head = `${capital(stepLabel(d.step, d.loop))} fired: ${d.deliveries} ${d.deliveries === 1 ? 'page' : 'pages'}`;
        if (!d.paged) return head;
        const who = d.paged.map((p) =>
          `${p.user}${p.schedule ? ' (on call in ' + p.schedule + ')' : ''} by ${p.channel} to ${p.to} ${after(p.delaySeconds)}`);
        return `${head}; paged ${who.join('; ')}`;
      }
      case 'no_one_on_call': return `Nobody on call in schedule ${d.schedule} for ${stepLabel(d.step, d.loop)}`;
      case 'alert_added': return `Alert ${d.key} joined${d.title ? ': ' + d.title : ''}`;
      case 'alert_resolved': return `Alert ${d.key} resolved${d.by ? ' by ' + d.by : ''}${d.via ? ' via ' + d.via : ''}`;
      case 'acknowledged':
      case 'resolved': {
        const verb = kind === 'acknowledged' ? 'Acknowledged' : 'Resolved';
        const by = d.by ? ` by ${d.by}` : '';
        const via = d.via ? ` via ${d.via}` : '';
        const cancelled = d.cancelledDeliveries ? `; ${d.cancelledDeliveries} pending pages cancelled` : '';
        return `${verb}${by}${via}${cancelled}`;
      }
      case 'delivery_sent': return `Delivered by ${d.channel} to ${d.target} (attempt ${d.attempt})`;
      case 'delivery_failed': return `Delivery by ${d.channel} to ${d.target} failed (attempt ${d.attempt}): ${d.error || 'no detail'}`;
      case 'dead_lettered':
        return `Gave up on ${d.channel} to ${d.target}: ${d.error || 'no detail'}${d.failoverTo ? '; failing over to ' + d.failoverTo : ''}`;
      case 'delivery_cancelled': return `Delivery by ${d.channel} to ${d.target} cancelled`;
      case 'delivery_replayed': return `Dead letter replayed: ${d.channel} to ${d.target}`;
      case 'note_added': return `Note by ${d.by}: ${d.text}`;
      case 'responders_requested':
        return `${d.by} paged ${d.users.join(', ')} to help${d.message ? ': ' + d.message : ''} (${d.deliveries} ${d.deliveries === 1 ? 'page' : 'pages'})`;
      case 'responder_acknowledged': return `Responder ${d.user} acknowledged`;
      case 'merged': return `Merged into incident #${d.into} by ${d.by}${d.cancelledDeliveries ? '; ' + d.cancelledDeliveries + ' pending pages cancelled' : ''}`;
      case 'merged_in': return `Incident #${d.from} (${d.dedupKey}) merged in by ${d.by}: ${d.events} events, ${d.alerts} alerts`;
      case 'subscribers_added': return `${d.by} subscribed ${d.added.join(', ')}`;
      case 'status_update': return `Status update by ${d.by} to ${d.recipients} ${d.recipients === 1 ? 'subscriber contact' : 'subscriber contacts'}: ${d.message}`;
      case 'escalated': return `Escalated now by ${d.by}${d.via ? ' via ' + d.via : ''}: ${stepLabel(d.step, d.loop)} fires at once`;
      case 'snoozed': return `Snoozed by ${d.by} until ${when(d.until)}`;
      case 'snooze_ended': return 'Snooze over: OPEN again, the ladder from step 1';
      case 'reassigned': {
        const to = d.user ? `user ${d.user}` : d.schedule ? `schedule ${d.schedule}` : `policy ${d.policy}`;
        const cancelled = d.cancelledDeliveries ? `; ${d.cancelledDeliveries} pending pages cancelled` : '';
        return `Reassigned to ${to} by ${d.by}${cancelled}`;
      }
      case 'priority_changed': return `Priority ${d.to || 'cleared'}${d.from ? ' (was ' + d.from + ')' : ''} by ${d.by}`;
      case 'exhausted': return 'Escalation ladder exhausted';
      case 'reopened': return `Reopened within its policy's window (${d.reopenCount} ${d.reopenCount === 1 ? 'time' : 'times'})`;
      case 'maintenance_hold': return `${capital(stepLabel(d.step, d.loop || 0))} held by maintenance until ${when(d.until)}`;
      case 'maintenance_ended': return `Maintenance over: the ladder starts again from step 1 at ${when(d.restartsAt)}`;
      default: return `${kind}${Object.keys(d).length ? ': ' + JSON.stringify(d) : ''}`;
    }
  }

  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  // A storm's timeline runs for hours: each entry shows its time of day, and a heading
  // names the date wherever the day changes (the first entry's day included).
  function withDays(timeline) {
    const items = [];
    let day = '';
    for (const entry of timeline) {
      const at = new Date(Date.parse(entry.at));
      const date = at.toLocaleDateString(undefined, {weekday: 'short', year: 'numeric', month: 'short', day: 'numeric'});
      if (date !== day) items.push(el('li', {className: 'day'}, (day = date)));
      items.push(el('li', {dataset: {kind: entry.kind}},
        el('time', {dateTime: entry.at, title: localTime(at.getTime())}, at.toLocaleTimeString()), ' ', describe(entry)));
    }
    return items;
  }

  // What a delivery was: a ladder step's page, a page to a requested responder, or a
  // status update (the actions write those with step -1).
  function pageLabel(d) {
    if (d.step >= 0) return stepLabel(d.step, d.loop);
    return d.idempotencyKey.includes(':status:') ? 'status update' : 'responder';
  }

  function deliveryTable(deliveries, people) {
    const head = ['Id', 'Step', 'Person', 'Channel', 'To', 'Status', 'Bundle', 'Attempts', 'Sent / next try', 'Last error'];
    return el('div', {className: 'table-scroll'}, el('table', {className: 'grid deliveries'},
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
      el('tbody', {}, ...deliveries.map((d) => {
        const person = people.get(pageKey(d.loop, d.step, d.channel, d.target));
        return el('tr', {dataset: {deliveryId: String(d.id)}},
          el('td', {className: 'num'}, d.id),
          el('td', {className: 'nowrap step'}, pageLabel(d)),
          el('td', {className: 'person'}, person ? person.user : '—'),
          el('td', {}, d.channel, d.failoverFrom ? el('span', {className: 'sub'}, `failover of ${d.failoverFrom}`) : null),
          el('td', {className: 'target'}, d.target),
          el('td', {className: 'status'}, el('span', {className: `badge delivery-${d.status}`}, d.status),
            d.heldBy ? el('span', {className: 'sub held'}, `held by ${d.heldBy}`) : null,
            d.ambiguous ? el('span', {className: 'sub'}, 'ambiguous') : null),
          el('td', {className: 'bundle'}, d.bundle ? el('button', {type: 'button', className: 'link open-bundle',
            title: 'the incidents sent in the same message', onclick: () => openBundle(d.bundle)}, `bundle ${d.bundle}`) : '—'),
          el('td', {className: 'num'}, d.attempts),
          el('td', {className: 'nowrap next'}, d.sentAt ? when(d.sentAt)
            : d.heldBy && d.nextAttemptAt ? el('span', {}, 'opens ', el('span', {className: 'opens', dataset: {due: d.nextAttemptAt}}, ''))
            : d.nextAttemptAt ? `next ${when(d.nextAttemptAt)}` : '—'),
          el('td', {className: 'reason'}, d.lastError || ''));
      }))));
  }

  // The bundle view: one message's incidents, each a click from its own view.
  async function openBundle(id) {
    const view = $('bundle-view');
    view.hidden = false;
    $('bundle-error').textContent = '';
    try {
      const res = await api(`/api/v1/bundles/${encodeURIComponent(id)}`);
      if (!res.ok) {
        $('bundle-error').textContent = `Bundle ${id}: ${await problem(res)}`;
        $('bundle-body').replaceChildren();
        return;
      }
      drawBundle(await res.json());
      view.scrollIntoView({block: 'nearest'});
    } catch (e) {
      if (!(e instanceof Unauthorized)) $('bundle-error').textContent = `Bundle ${id}: ${e.message}`;
    }
  }

  const carried = (n) => (n === 0 ? '' : `, ${n} ${n === 1 ? 'incident' : 'incidents'} still open from the message before`);

  function drawBundle({bundle: b, incidents}) {
    const members = incidents.filter((i) => i.member).length;
    $('bundle-heading').textContent = `Bundle ${b.id}`;
    $('bundle-view').dataset.bundleId = String(b.id);
    $('bundle-body').replaceChildren(
      el('p', {className: 'sub'}, `One message by ${b.channel} to ${b.target}: ${members} ` +
        `${members === 1 ? 'page' : 'pages'}${carried(incidents.length - members)}.`),
      el('ul', {className: 'bundle-incidents'}, ...incidents.map((i) =>
        el('li', {dataset: {incidentId: String(i.id)}},
          el('button', {type: 'button', className: 'link open-incident', onclick: () => open(i.id)},
            `#${i.id} `, el('span', {className: 'title'}, i.title)),
          el('span', {className: `sev sev-${i.severity}`}, i.severity),
          el('span', {className: `badge status-${i.status}`}, i.status),
          i.member ? null : el('span', {className: 'sub'}, 'carried over')))));
  }

  $('bundle-close').addEventListener('click', () => ($('bundle-view').hidden = true));
  $('incident-close').addEventListener('click', close);
  $('incident-open-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const id = $('incident-open-id').value.trim();
    if (/^\d+$/.test(id)) open(id);
    else $('incident-error').textContent = 'An incident id is a number.';
  });
  window.belayConsole.openIncident = open;
  window.belayConsole.closeIncident = () => {
    close();
    $('bundle-view').hidden = true;
  };
  window.belayConsole.openBundle = openBundle;
})();
