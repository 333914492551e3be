// The incident view (docs/http.md#inspector): one incident's facts, its timeline and its
// deliveries — who was paged, by which contact, with what outcome — opened from the
// incidents table or by id (resolved incidents have no actor, so no row), and kept fresh
// while it is open. Built on console.js's helpers; data reaches the page as text only.
'use strict';

(() => {
  const {el, api, problem, localTime, duration, Unauthorized} = window.belayConsole;
  const REFRESH_MS = 3000;
  const $ = (id) => document.getElementById(id);

  let openId = null;
  let refreshTimer = null;
  let shown = ''; // the last answer drawn: a refresh that changes nothing redraws nothing

  async function open(id) {
    openId = String(id);
    shown = '';
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

  function draw({incident: inc, timeline, deliveries, changes = []}) {
    const people = pagedPeople(timeline);
    $('incident-heading').textContent = `Incident ${inc.id}`;
    $('incident-body').replaceChildren(
      el('p', {className: 'incident-title'},
        el('span', {className: 'title'}, inc.title),
        el('span', {className: `sev sev-${inc.severity}`}, inc.severity),
        el('span', {className: `badge status-${inc.status}`}, inc.status)),
      facts(inc),
      el('h3', {}, 'Timeline'),
      el('ol', {className: 'incident-timeline'}, ...timeline.map(timelineEntry)),
      el('h3', {}, 'Deliveries'),
      deliveries.length ? deliveryTable(deliveries, people) : el('p', {className: 'empty'}, 'No deliveries yet.'),
      el('h3', {}, 'Changes in the hour before'),
      changes.length ? el('ul', {className: 'incident-changes'}, ...changes.map(changeItem))
        : el('p', {className: 'empty'}, 'No change events.'));
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

  function facts(inc) {
    const rows = [
      ['Dedup key', inc.dedupKey], ['Policy', inc.policy],
      ['Step / loop', `step ${inc.currentStep} · loop ${inc.loop}`], ['Events', inc.eventCount],
      ['Opened', when(inc.createdAt)], ['Last event', when(inc.lastSeenAt)],
      ['Next step', inc.nextFireAt ? when(inc.nextFireAt) : null],
      ['Maintenance', inc.inMaintenance ? `held until ${when(inc.maintenanceUntil)}` : null],
      ['Reopened', inc.reopenCount ? `${inc.reopenCount} ${inc.reopenCount === 1 ? 'time' : 'times'}` : null],
      ['Acknowledged', inc.ackedAt ? `${when(inc.ackedAt)}${answeredBy(inc.ackedBy, inc.ackedVia)}` : null],
      ['Resolved', inc.resolvedAt ? `${when(inc.resolvedAt)}${answeredBy(inc.resolvedBy, inc.resolvedVia)}` : null],
      ['Exhausted', inc.exhaustedAt ? when(inc.exhaustedAt) : null],
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
        const head = `Step ${d.step} fired (loop ${d.loop}): ${d.deliveries} ${d.deliveries === 1 ? 'page' : 'pages'}`;
        if (!d.paged) return head;
        const who = d.paged.map((p) =>
          `${p.user}${p.schedule ? ' (on call in ' + p.schedule + ')' : ''} by ${p.channel} to ${p.to} ${after(p.delaySeconds)}`);
        return `${head}; paged ${who.join('; ')}`;
      }
      case 'no_one_on_call': return `Nobody on call in schedule ${d.schedule} for step ${d.step} (loop ${d.loop})`;
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
      case 'exhausted': return 'Escalation ladder exhausted';
      case 'reopened': return `Reopened within its policy's window (${d.reopenCount} ${d.reopenCount === 1 ? 'time' : 'times'})`;
      case 'maintenance_hold': return `Step ${d.step} held by maintenance until ${when(d.until)}`;
      case 'maintenance_ended': return `Maintenance over: the ladder starts again from step 1 at ${when(d.restartsAt)}`;
      default: return `${kind}${Object.keys(d).length ? ': ' + JSON.stringify(d) : ''}`;
    }
  }

  function timelineEntry(entry) {
    return el('li', {dataset: {kind: entry.kind}},
      el('time', {dateTime: entry.at}, when(entry.at)), ' ', describe(entry));
  }

  function deliveryTable(deliveries, people) {
    const head = ['Id', 'Step', 'Person', 'Channel', 'To', 'Status', 'Attempts', 'Sent / next try', 'Last error'];
    return el('div', {className: 'table-scroll'}, el('table', {className: 'grid deliveries'},
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
      el('tbody', {}, ...deliveries.map((d) => {
        const person = people.get(pageKey(d.loop, d.step, d.channel, d.target));
        return el('tr', {dataset: {deliveryId: String(d.id)}},
          el('td', {className: 'num'}, d.id),
          el('td', {className: 'nowrap'}, `${d.step} · ${d.loop}`),
          el('td', {className: 'person'}, person ? person.user : '—'),
          el('td', {}, d.channel, d.failoverFrom ? el('span', {className: 'sub'}, `failover of ${d.failoverFrom}`) : null),
          el('td', {className: 'target'}, d.target),
          el('td', {}, el('span', {className: `badge delivery-${d.status}`}, d.status),
            d.ambiguous ? el('span', {className: 'sub'}, 'ambiguous') : null),
          el('td', {className: 'num'}, d.attempts),
          el('td', {className: 'nowrap'}, d.sentAt ? when(d.sentAt) : d.nextAttemptAt ? `next ${when(d.nextAttemptAt)}` : '—'),
          el('td', {className: 'reason'}, d.lastError || ''));
      }))));
  }

  $('incident-close').addEventListener('click', close);
  $('incident-open-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const id = $('incident-open-id').value.trim();
    if (/^\d+$/.test(id)) open(id);
    else $('incident-error').textContent = 'An incident id is a number.';
  });
  window.belayConsole.openIncident = open;
  window.belayConsole.closeIncident = close;
})();
