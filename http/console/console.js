// belay inspector console: one page, no framework. Data arrives as inspector snapshots
// (docs/http.md#inspector) over a server-sent-event stream read with fetch(); polling takes
// over when the stream fails. It runs as the signed-in user (docs/security.md#sessions):
// the session cookie goes with every request on its own, and every write carries the
// session's CSRF token from GET /api/v1/me. What the user's role may not do is hidden
// (body[data-role]), and the server refuses it anyway. Every piece of data reaches the
// page through textContent, never as HTML.
'use strict';

(() => {
  const POLL_MS = 2000;
  const STREAM_RETRY_MS = 10000;

  const $ = (id) => document.getElementById(id);

  // el('td', {className: 'num'}, 'text', childNode): strings become text nodes.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'dataset') Object.assign(node.dataset, value);
      else if (name === 'onclick') node.addEventListener('click', value);
      else if (name in node) node[name] = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  class Unauthorized extends Error {}

  let me = null; // GET /api/v1/me: {user: {name, login, role, org}, csrfToken}
  let session = null; // {controller, mode, pollTimer, retryTimer}
  let snapshot = null;
  let receivedAt = 0; // local Date.now() when `snapshot` arrived
  let clockOffsetMs = 0; // the node's clock minus ours: countdowns follow the node's time
  const pendingIncidents = new Set();
  const pendingReplays = new Set();
  // Incidents as returned by ack/resolve, shown until a snapshot catches up with them.
  const answered = new Map();

  // ---- HTTP --------------------------------------------------------------------------

  async function api(path, {method = 'GET', body} = {}) {
    const headers = {Accept: 'application/json'};
    if (method !== 'GET' && me) headers['X-CSRF-Token'] = me.csrfToken;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
      signal: session ? session.controller.signal : undefined,
    });
    if (res.status === 401) {
      signOut('Your session has ended (401): sign in again.');
      throw new Unauthorized('unauthorized');
    }
    return res;
  }

  async function problem(res) {
    try {
      const body = await res.json();
      if (body && body.error && body.error.message) return `${body.error.message} (HTTP ${res.status})`;
    } catch (_) { /* not JSON: fall through */ }
    return `HTTP ${res.status}`;
  }

  async function refresh() {
    const res = await api('/api/v1/inspector');
    if (!res.ok) throw new Error('inspector: ' + (await problem(res)));
    accept(await res.json());
  }

  // ---- session: stream first, polling as the fallback ---------------------------------

  async function start() {
    stopSession();
    const s = (session = {controller: new AbortController(), mode: 'connecting'});
    setConnection('connecting', 'asking the node for a first snapshot');
    try {
      await refresh();
    } catch (e) {
      if (e instanceof Unauthorized || s !== session) return;
      showConsole();
      s.why = e.message;
      setConnection('offline', e.message);
      startPolling(s);
      scheduleStreamRetry(s);
      return;
    }
    showConsole();
    openStream(s);
  }

  async function openStream(s) {
    if (s !== session) return;
    let res;
    try {
      res = await fetch('/api/v1/inspector/stream', {
        headers: {Accept: 'text/event-stream'},
        cache: 'no-store',
        credentials: 'same-origin',
        signal: s.controller.signal,
      });
    } catch (e) {
      if (s === session) streamFailed(s, 'stream: ' + e.message);
      return;
    }
    if (res.status === 401) {
      signOut('Your session has ended (401): sign in again.');
      return;
    }
    if (!res.ok || !res.body) {
      streamFailed(s, 'stream: ' + (await problem(res)));
      return;
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const push = eventStreamParser((event, data) => {
      if (event !== 'snapshot' || s !== session) return;
      try {
        accept(JSON.parse(data));
      } catch (e) {
        setConnection(s.mode, 'a snapshot did not parse: ' + e.message);
        return;
      }
      if (s.mode !== 'live') {
        s.mode = 'live';
        stopPolling(s);
        setConnection('live', 'server-sent events from /api/v1/inspector/stream');
      }
    });
    try {
      for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        push(value);
      }
      if (s === session) streamFailed(s, 'the node closed the stream');
    } catch (e) {
      if (s === session && !s.controller.signal.aborted) streamFailed(s, 'stream broke: ' + e.message);
    }
  }

  function streamFailed(s, why) {
    s.mode = 'polling';
    s.why = why;
    setConnection('polling', why);
    startPolling(s);
    scheduleStreamRetry(s);
  }

  function scheduleStreamRetry(s) {
    clearTimeout(s.retryTimer);
    s.retryTimer = setTimeout(() => openStream(s), STREAM_RETRY_MS);
  }

  function startPolling(s) {
    if (s.pollTimer) return;
    const poll = async () => {
      if (s !== session || s.mode === 'live') {
        s.pollTimer = null;
        return;
      }
      try {
        await refresh();
        if (s === session && s.mode !== 'live') {
          s.mode = 'polling';
          setConnection('polling', s.why);
        }
      } catch (e) {
        if (e instanceof Unauthorized || s !== session) return;
        setConnection('offline', e.message);
      }
      if (s === session && s.mode !== 'live') s.pollTimer = setTimeout(poll, POLL_MS);
      else s.pollTimer = null;
    };
    s.pollTimer = setTimeout(poll, 0);
  }

  function stopPolling(s) {
    clearTimeout(s.pollTimer);
    s.pollTimer = null;
  }

  function stopSession() {
    if (!session) return;
    session.controller.abort();
    stopPolling(session);
    clearTimeout(session.retryTimer);
    session = null;
  }

  // Parses text/event-stream chunks (WHATWG HTML, "Parsing an event stream") and calls
  // onEvent(type, data) for each complete event.
  function eventStreamParser(onEvent) {
    let buffer = '';
    let type = '';
    let data = [];
    return (chunk) => {
      buffer += chunk;
      // A chunk ending in "\r" may be half of a "\r\n": keep it for the next chunk.
      const cut = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, cut).split(/\r\n|\r|\n/);
      buffer = lines.pop() + buffer.slice(cut);
      for (const line of lines) {
        if (line === '') {
          if (data.length) onEvent(type || 'message', data.join('\n'));
          type = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') type = value;
        else if (field === 'data') data.push(value);
      }
    };
  }

  // ---- signing in and the header ------------------------------------------------------

  function showLogin(message) {
    $('console').hidden = true;
    $('whoami').hidden = true;
    $('sign-out').hidden = true;
    $('nav-config').hidden = true;
    $('nav-audit').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = message || '';
    $('login-submit').focus();
  }

  // Who is signed in, and what the page offers them.
  function showUser() {
    const {user} = me;
    document.body.dataset.role = user.role;
    $('whoami').replaceChildren(el('strong', {}, user.name), ` · ${user.role} · ${user.org}`);
    $('whoami').title = user.login ? `signed in as ${user.login}` : '';
  }

  function showConsole() {
    if ($('console').hidden) {
      loadOnCall();
      loadHeartbeats();
      loadMaintenance();
    }
    $('login').hidden = true;
    $('console').hidden = false;
    $('whoami').hidden = false;
    $('sign-out').hidden = false;
    const admin = me && me.user.role === 'admin';
    $('nav-config').hidden = !admin;
    $('nav-audit').hidden = !admin;
  }

  function signOut(message) {
    stopSession();
    me = null;
    delete document.body.dataset.role;
    snapshot = null;
    answered.clear();
    for (const id of ['incidents', 'dead-letters', 'heartbeats']) $(id).tBodies[0].replaceChildren();
    $('channels').replaceChildren();
    $('schedules').replaceChildren();
    window.belayConsole.closeIncident();
    window.belayConsole.closeConfig();
    window.belayConsole.closeAudit();
    $('node').textContent = 'not connected';
    setConnection('idle', '');
    showLogin(message);
  }

  function setConnection(state, detail) {
    const text = {
      idle: 'not connected',
      connecting: 'connecting…',
      live: 'live',
      polling: `polling every ${POLL_MS / 1000} s`,
      offline: 'offline, retrying',
    }[state];
    $('connection').dataset.state = state;
    $('connection').title = detail || '';
    $('connection-text').textContent = text;
  }

  let noticeTimer = null;
  function notice(text, bad) {
    const box = $('notice');
    box.textContent = text;
    box.classList.toggle('bad', !!bad);
    box.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => (box.hidden = true), bad ? 15000 : 6000);
  }

  // ---- actions ------------------------------------------------------------------------

  // Acknowledged or resolved as the signed-in user: the server takes who from the session.
  async function incidentAction(id, action) {
    pendingIncidents.add(id);
    render();
    try {
      const res = await api(`/api/v1/incidents/${encodeURIComponent(id)}/${action}`, {
        method: 'POST',
        body: {},
      });
      const verb = action === 'ack' ? 'acknowledge' : 'resolve';
      if (!res.ok) {
        notice(`Could not ${verb} incident ${id}: ${await problem(res)}`, true);
        return;
      }
      const {incident} = await res.json();
      if (incident) answered.set(String(incident.id), incident);
      notice(action === 'ack' ? `Incident ${id} acknowledged by ${me ? me.user.name : 'you'}.` : `Incident ${id} resolved.`);
      refresh().catch(() => {});
    } catch (e) {
      if (!(e instanceof Unauthorized)) notice(`Incident ${id}: ${e.message}`, true);
    } finally {
      pendingIncidents.delete(id);
      render();
    }
  }

  async function replay(id) {
    pendingReplays.add(id);
    render();
    try {
      const res = await api(`/api/v1/dead-letters/${encodeURIComponent(id)}/replay`, {method: 'POST'});
      if (res.ok) notice(`Dead letter ${id} replayed: a new delivery is queued.`);
      else notice(`Could not replay dead letter ${id}: ${await problem(res)}`, true);
      refresh().catch(() => {});
    } catch (e) {
      if (!(e instanceof Unauthorized)) notice(`Dead letter ${id}: ${e.message}`, true);
    } finally {
      pendingReplays.delete(id);
      render();
    }
  }

  // ---- rendering ----------------------------------------------------------------------

  function accept(next) {
    snapshot = next;
    receivedAt = Date.now();
    const nodeNow = Date.parse(next.node && next.node.now);
    clockOffsetMs = Number.isFinite(nodeNow) ? nodeNow - receivedAt : 0;
    render();
  }

  const nodeNowMs = () => Date.now() + clockOffsetMs;
  const timeOf = (text) => (text ? Date.parse(text) : NaN);

  function duration(ms) {
    const s = Math.floor(Math.abs(ms) / 1000);
    if (s < 60) return `${s}s`;
    const pad = (n) => String(n).padStart(2, '0');
    if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
    if (s < 86400) return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`;
    return `${Math.floor(s / 86400)}d ${Math.floor(s / 3600) % 24}h`;
  }

  const localTime = (ms) => new Date(ms).toLocaleString();

  // "step 2", "step 1 (repeat 1)": the API counts steps and loops from 0, people (and
  // every message belay sends, protocol/wording.cpp) count steps from 1.
  const stepLabel = (step, loop) => `step ${step + 1}${loop > 0 ? ` (repeat ${loop})` : ''}`;

  // Brings container's children in line with items, keyed by keyOf. A child is rebuilt
  // only when its item changed, so focus and hover survive unrelated updates.
  const signatures = new WeakMap();
  function reconcile(container, items, keyOf, build) {
    const old = new Map();
    for (const child of container.children) old.set(child.dataset.key, child);
    items.forEach((item, i) => {
      const key = String(keyOf(item));
      const signature = JSON.stringify(item);
      let node = old.get(key);
      old.delete(key);
      if (!node || signatures.get(node) !== signature) {
        const fresh = build(item);
        fresh.dataset.key = key;
        signatures.set(fresh, signature);
        if (node) node.replaceWith(fresh);
        node = fresh;
      }
      if (container.children[i] !== node) container.insertBefore(node, container.children[i] || null);
    });
    for (const node of old.values()) node.remove();
  }

  function render() {
    if (!snapshot) return;
    renderSummary();
    renderChannels();
    renderIncidents();
    renderDeadLetters();
    tick();
  }

  function renderSummary() {
    const reg = snapshot.registry || {};
    const st = snapshot.storage || {};
    $('reg-held').textContent = reg.held ?? '–';
    $('reg-created').textContent = reg.created ?? '–';
    $('reg-deduplicated').textContent = reg.deduplicated ?? '–';
    $('reg-respawned').textContent = reg.respawned ?? '–';
    $('st-workers').textContent = st.workers ?? '–';
    $('st-pool').textContent = st.poolSize === undefined ? '–' : `${st.poolBusy} / ${st.poolSize}`;
  }

  function channelHealth(ch) {
    if (ch.deadLetters > 0 || (ch.retriesScheduled || []).length > 0) return 'failing';
    if (ch.failed > 0) return 'degraded';
    return 'healthy';
  }

  function renderChannels() {
    const channels = snapshot.channels || [];
    $('channels-empty').hidden = channels.length > 0;
    reconcile($('channels'), channels, (ch) => ch.name, (ch) => {
      const health = channelHealth(ch);
      const retries = ch.retriesScheduled || [];
      const throttled = ch.throttled || [];
      const held = throttled.reduce((n, t) => n + t.waiting, 0);
      const figure = (label, value, hot) =>
        el('div', {}, el('dt', {}, label), el('dd', {className: hot ? 'hot' : ''}, value));
      return el('article', {className: `channel ${health}`, dataset: {channel: ch.name}},
        el('header', {},
          el('span', {className: 'name'}, ch.name),
          el('span', {className: 'type'}, ch.type),
          el('span', {className: 'health'}, health)),
        el('dl', {},
          figure('queued', ch.queued),
          figure('in flight', ch.inFlight),
          figure('retries', retries.length, retries.length > 0),
          figure('sent', ch.sent),
          figure('failed', ch.failed, ch.failed > 0),
          figure('dead letters', ch.deadLetters, ch.deadLetters > 0),
          figure('held', held, held > 0)),
        throttled.length === 0 ? null : el('ul', {className: 'throttled', 'aria-label': 'contacts held by their throttle'},
          ...throttled.map((t) => el('li', {dataset: {target: t.target}, title: `opens ${localTime(timeOf(t.opensAt))}`},
            el('span', {className: 'target'}, `→ ${t.target}`),
            el('span', {className: 'waiting'}, `${t.waiting} waiting`),
            el('span', {}, 'opens ', el('span', {className: 'due', dataset: {due: t.opensAt}}, ''))))),
        retries.length === 0 ? null : el('ul', {},
          ...retries.map((r) => el('li', {title: `delivery ${r.deliveryId}, due ${localTime(timeOf(r.dueAt))}`},
            el('span', {}, `#${r.incidentId}`),
            el('span', {}, `→ ${r.target}`),
            el('span', {}, `attempt ${r.attempt}`),
            el('span', {className: 'due', dataset: {due: r.dueAt}}, '')))));
    });
  }

  function incidentRows() {
    const rows = (snapshot.incidents || []).map((entry) => {
      const id = String(entry.incident.id);
      const fresh = answered.get(id);
      const incident = fresh && fresh.version > entry.incident.version ? fresh : entry.incident;
      const due = incident.status === 'RESOLVED' ? null : entry.nextTimerDue ?? incident.nextFireAt ?? null;
      return {actorId: entry.actorId, upSince: entry.upSince, mailbox: entry.mailbox, due, incident,
              noOneOnCall: entry.noOneOnCall || [], pending: pendingIncidents.has(id)};
    });
    const present = new Set(rows.map((r) => String(r.incident.id)));
    for (const id of answered.keys()) if (!present.has(id)) answered.delete(id);
    const dueKey = (r) => (r.due ? timeOf(r.due) : Infinity);
    return rows.sort((a, b) => dueKey(a) - dueKey(b) || a.incident.id - b.incident.id);
  }

  function renderIncidents() {
    const rows = incidentRows();
    $('incidents-empty').hidden = rows.length > 0;
    $('incidents').hidden = rows.length === 0;
    $('incident-count').textContent = rows.length ? `(${rows.length})` : '';
    reconcile($('incidents').tBodies[0], rows, (r) => r.incident.id, (r) => {
      const inc = r.incident;
      const id = String(inc.id);
      const closed = inc.status === 'RESOLVED';
      return el('tr', {dataset: {incidentId: id}, title: `actor ${r.actorId}, up since ${localTime(timeOf(r.upSince))}`},
        el('td', {className: 'num'}, id),
        el('td', {},
          el('button', {type: 'button', className: 'link open-incident', title: 'timeline and deliveries',
                        onclick: () => window.belayConsole.openIncident(id)},
            el('span', {className: 'title'}, inc.title)),
          el('span', {className: `sev sev-${inc.severity}`}, inc.severity),
          el('span', {className: 'sub'}, `${inc.dedupKey} · ${inc.policy}`),
          inc.alertCount > 1 ? el('span', {className: 'sub alerts'}, `${inc.firingCount} of ${inc.alertCount} alerts firing`) : null),
        el('td', {className: 'status'},
          el('span', {className: `badge status-${inc.status}`}, inc.status),
          inc.ackedBy ? el('span', {className: 'sub'}, `by ${inc.ackedBy}${inc.ackedVia ? ' via ' + inc.ackedVia : ''}`) : null,
          r.noOneOnCall.length ? el('span', {className: 'sub nobody'}, `nobody on call: ${r.noOneOnCall.join(', ')}`) : null),
        el('td', {className: 'nowrap step'}, inc.status === 'OPEN' ? stepLabel(inc.currentStep, inc.loop) : '—'),
        el('td', {className: 'timer', dataset: r.due ? {due: r.due} : {}}, r.due ? '' : '—'),
        el('td', {className: 'num'}, inc.version),
        el('td', {className: 'num'}, r.mailbox),
        el('td', {className: 'num'}, inc.eventCount),
        el('td', {className: 'actions'},
          el('button', {type: 'button', className: 'ack needs-responder', disabled: r.pending || closed || inc.status === 'ACKNOWLEDGED',
                        onclick: () => incidentAction(id, 'ack')}, 'Acknowledge'),
          el('button', {type: 'button', className: 'resolve danger needs-responder', disabled: r.pending || closed,
                        onclick: () => incidentAction(id, 'resolve')}, 'Resolve')));
    });
  }

  function renderDeadLetters() {
    const letters = (snapshot.deadLetters || []).map((d) => ({...d, pending: pendingReplays.has(String(d.id))}));
    $('dead-empty').hidden = letters.length > 0;
    $('dead-letters').hidden = letters.length === 0;
    $('dead-count').textContent = letters.length ? `(${letters.length})` : '';
    reconcile($('dead-letters').tBodies[0], letters, (d) => d.id, (d) =>
      el('tr', {dataset: {deadLetterId: String(d.id)}, title: `delivery ${d.deliveryId}`},
        el('td', {className: 'num'}, d.id),
        el('td', {className: 'num'}, d.incidentId),
        el('td', {}, d.channel),
        el('td', {}, d.target),
        el('td', {className: 'reason'}, d.reason),
        el('td', {className: 'timer', title: localTime(timeOf(d.failedAt)), dataset: {since: d.failedAt}}, ''),
        el('td', {className: 'actions'},
          el('button', {type: 'button', className: 'replay needs-responder', disabled: d.pending,
                        onclick: () => replay(String(d.id))}, 'Replay'))));
  }

  // Once a second (and after every render): countdowns, ages and the node's uptime.
  function tick() {
    if (!snapshot) return;
    const now = nodeNowMs();
    for (const node of document.querySelectorAll('[data-due]')) {
      const left = timeOf(node.dataset.due) - now;
      node.textContent = left >= 0 ? `in ${duration(left)}` : `overdue ${duration(left)}`;
      node.classList.toggle('overdue', left < -1000);
      node.classList.toggle('soon', left >= -1000 && left < 60000);
      if (!node.title) node.title = `due ${localTime(timeOf(node.dataset.due))}`;
    }
    for (const node of document.querySelectorAll('[data-since]')) {
      node.textContent = `${duration(now - timeOf(node.dataset.since))} ago`;
    }
    const n = snapshot.node || {};
    const up = (n.uptimeSeconds || 0) * 1000 + (Date.now() - receivedAt);
    $('node').textContent = `node ${n.id} · belay ${n.version} · up ${duration(up)}`;
    $('node').title = `started ${localTime(timeOf(n.startedAt))}`;
  }

  // ---- on call: each schedule's person now, the next 14 days, overrides ---------------

  const DAY_MS = 86400000;
  const ONCALL_REFRESH_MS = 30000;
  const TIMELINE_DAYS = 14;
  const q = encodeURIComponent;

  // One colour per person, the same on every redraw.
  function hue(name) {
    let h = 0;
    for (const c of name) h = (h * 31 + c.codePointAt(0)) % 360;
    return h;
  }

  async function loadOnCall() {
    if (!me) return;
    try {
      const res = await api('/api/v1/schedules');
      if (!res.ok) throw new Error('schedules: ' + (await problem(res)));
      const {schedules} = await res.json();
      const from = new Date(Date.now() + clockOffsetMs);
      const to = new Date(from.getTime() + TIMELINE_DAYS * DAY_MS);
      const cards = [];
      for (const s of schedules) {
        const span = `from=${q(from.toISOString())}&to=${q(to.toISOString())}`;
        const [shifts, overrides] = await Promise.all([
          api(`/api/v1/schedules/${q(s.name)}/shifts?${span}`).then((r) => r.json()),
          api(`/api/v1/schedules/${q(s.name)}/overrides`).then((r) => r.json()),
        ]);
        cards.push(scheduleCard(s, shifts.shifts || [], overrides.overrides || [], from, to));
      }
      $('schedules').replaceChildren(...cards);
      $('schedules-empty').hidden = schedules.length > 0;
      $('oncall-error').textContent = '';
    } catch (e) {
      if (!(e instanceof Unauthorized)) $('oncall-error').textContent = e.message;
    }
  }

  function scheduleCard(s, shifts, overrides, from, to) {
    const now = s.oncall[0];
    const next = shifts.find((sh) => now && Date.parse(sh.start) >= Date.parse(now.end));
    const bar = el('div', {className: 'timeline', role: 'img',
      'aria-label': `${s.name}: the next ${TIMELINE_DAYS} days`});
    const total = to - from;
    const axis = dateAxis(from, to);
    for (const sh of shifts) {
      const left = Math.max(0, (Date.parse(sh.start) - from) / total);
      const right = Math.min(1, (Date.parse(sh.end) - from) / total);
      bar.append(el('span', {
        className: 'shift' + (sh.source.startsWith('override:') ? ' override' : ''),
        title: `${sh.user}: ${localTime(Date.parse(sh.start))} – ${localTime(Date.parse(sh.end))} (${sh.source})`,
        style: `left:${(left * 100).toFixed(3)}%;width:${((right - left) * 100).toFixed(3)}%;` +
          `background:hsl(${hue(sh.user)} 55% 82%)`,
      }, sh.user));
    }
    const list = el('ul', {className: 'overrides'});
    for (const o of overrides) {
      list.append(el('li', {dataset: {override: o.id}},
        `${o.user}${o.replaces ? ' for ' + o.replaces : ''}: ${localTime(Date.parse(o.start))} – ${localTime(Date.parse(o.end))} `,
        el('button', {type: 'button', className: 'quiet needs-responder', onclick: () => removeOverride(s.name, o.id)},
          'Remove')));
    }
    return el('article', {className: 'schedule', dataset: {schedule: s.name}},
      el('h3', {}, s.name, el('span', {className: 'zone'}, s.timeZone)),
      el('p', {className: 'now'}, now
        ? el('span', {}, 'On call now: ', el('strong', {className: 'oncall-now'}, now.user),
          ` until ${localTime(Date.parse(now.end))}`)
        : 'Nobody is on call now.'),
      el('p', {className: 'next'}, next ? `Next handoff: ${localTime(Date.parse(next.start))} to ${next.user}` : ''),
      bar,
      axis,
      el('h4', {}, 'Overrides'),
      overrides.length ? list : el('p', {className: 'empty'}, 'None.'),
      overrideForm(s.name));
  }

  // Under the bar: a tick at each local midnight, labelled with the day ("Sat 5"); on a
  // narrow screen every other label is hidden (console.css) so the rest stay legible.
  function dateAxis(from, to) {
    const axis = el('div', {className: 'date-axis', 'aria-hidden': 'true'});
    const day = new Date(from);
    day.setHours(24, 0, 0, 0);
    for (let i = 0; day < to; i++, day.setDate(day.getDate() + 1)) {
      const at = (day - from) / (to - from);
      axis.append(el('span', {
        className: 'tick' + (i % 2 ? ' odd' : ''),
        style: `left:${(at * 100).toFixed(3)}%`,
        dataset: {date: day.toISOString()},
      }, day.toLocaleDateString(undefined, {weekday: 'short', day: 'numeric'})));
    }
    return axis;
  }

  function overrideForm(schedule) {
    const field = (name, type, label) => el('label', {}, label,
      el('input', {name, type, required: name !== 'replaces', autocomplete: 'off'}));
    const error = el('span', {className: 'error', role: 'alert'});
    const form = el('form', {className: 'override-form needs-responder'},
      field('user', 'text', 'Who'), field('replaces', 'text', 'Instead of (optional)'),
      field('start', 'datetime-local', 'From'), field('end', 'datetime-local', 'To'),
      el('button', {type: 'submit'}, 'Add override'), error);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const v = (name) => form.elements[name].value.trim();
      const body = {user: v('user'), start: new Date(v('start')).toISOString(),
        end: new Date(v('end')).toISOString()};
      if (v('replaces')) body.replaces = v('replaces');
      try {
        const res = await api(`/api/v1/schedules/${q(schedule)}/overrides`, {method: 'POST', body});
        if (!res.ok) {
          error.textContent = await problem(res);
          return;
        }
        await loadOnCall();
      } catch (e) {
        if (!(e instanceof Unauthorized)) error.textContent = e.message;
      }
    });
    return form;
  }

  async function removeOverride(schedule, id) {
    try {
      const res = await api(`/api/v1/schedules/${q(schedule)}/overrides/${id}`, {method: 'DELETE'});
      if (!res.ok && res.status !== 404) throw new Error('override: ' + (await problem(res)));
      await loadOnCall();
    } catch (e) {
      if (!(e instanceof Unauthorized)) $('oncall-error').textContent = e.message;
    }
  }

  setInterval(() => { if (me && !$('console').hidden) loadOnCall(); }, ONCALL_REFRESH_MS);

  // ---- heartbeats: each monitor's state, last ping and next due (docs/guarantees.md#heartbeats)

  const HEARTBEATS_REFRESH_MS = 5000;

  async function loadHeartbeats() {
    if (!me) return;
    try {
      const res = await api('/api/v1/heartbeats');
      if (!res.ok) throw new Error('heartbeats: ' + (await problem(res)));
      const {heartbeats} = await res.json();
      $('heartbeats-empty').hidden = heartbeats.length > 0;
      $('heartbeats').hidden = heartbeats.length === 0;
      reconcile($('heartbeats').tBodies[0], heartbeats, (h) => h.name, (h) =>
        el('tr', {dataset: {heartbeat: h.name}},
          el('td', {className: 'name'}, h.name),
          el('td', {className: 'state'}, el('span', {className: `badge hb-${h.state}`}, h.state)),
          h.lastPingAt
            ? el('td', {className: 'timer last-ping', title: localTime(timeOf(h.lastPingAt)),
                        dataset: {since: h.lastPingAt}}, '')
            : el('td', {className: 'last-ping'}, 'never'),
          h.nextDueAt
            ? el('td', {className: 'timer next-due', dataset: {due: h.nextDueAt}}, '')
            : el('td', {className: 'next-due'}, '–')));
      $('heartbeats-error').textContent = '';
      tick();
    } catch (e) {
      if (!(e instanceof Unauthorized)) $('heartbeats-error').textContent = e.message;
    }
  }

  setInterval(() => { if (me && !$('console').hidden) loadHeartbeats(); }, HEARTBEATS_REFRESH_MS);

  // ---- maintenance: a banner while a window is active (docs/guarantees.md#maintenance-windows) -----------

  const MAINTENANCE_REFRESH_MS = 10000;

  async function loadMaintenance() {
    if (!me) return;
    try {
      const res = await api('/api/v1/maintenance');
      if (!res.ok) return;
      const {maintenance} = await res.json();
      const now = Date.now() + clockOffsetMs;
      const active = maintenance.filter((m) => Date.parse(m.start) <= now && now < Date.parse(m.end));
      const banner = $('maintenance-banner');
      banner.hidden = active.length === 0;
      banner.replaceChildren(...active.map((m) => el('span', {className: 'window', dataset: {id: String(m.id)}},
        `Maintenance on ${m.policy ? 'policy ' + m.policy : 'integration ' + m.integration} until `,
        el('time', {dateTime: m.end}, localTime(Date.parse(m.end))),
        m.reason ? ` — ${m.reason}` : '',
        ': events are recorded, nothing pages.')));
    } catch (_) { /* the next refresh tries again */ }
  }

  // ---- wiring -------------------------------------------------------------------------

  // Signing out ends the session on every node (POST /auth/logout); the page forgets
  // everything it showed.
  $('sign-out').addEventListener('click', async () => {
    try {
      await api('/auth/logout', {method: 'POST'});
    } catch (_) { /* signed out already */ }
    signOut('You have signed out.');
  });

  // For incident.js, config.js and audit.js (loaded after this file), which add
  // openIncident, closeIncident, closeConfig and closeAudit.
  window.belayConsole = {el, api, problem, localTime, duration, stepLabel, Unauthorized};

  setInterval(tick, 1000);
  setInterval(loadMaintenance, MAINTENANCE_REFRESH_MS);
  // Signed in already (the cookie of /login's sign-in)? Otherwise the sign-in button.
  (async () => {
    const res = await fetch('/api/v1/me', {headers: {Accept: 'application/json'}, cache: 'no-store',
                                          credentials: 'same-origin'}).catch(() => null);
    if (!res || !res.ok) {
      showLogin(res && res.status !== 401 ? `Could not ask who you are: HTTP ${res.status}` : '');
      return;
    }
    me = await res.json();
    showUser();
    $('login').hidden = true;
    start();
  })();
})();
