// The configuration view (docs/http.md#console-configuration): the org's provisioning
// document from GET /api/v1/config (docs/http.md#configuration-api), laid out to read on
// a phone — users and their contacts, schedules and their layers, policies and their
// steps, channels, integrations, heartbeats — with the document itself one toggle away.
// Read-only: changes go through PUT /api/v1/config or `belay provision`. A secret or key
// is never drawn: a field that holds one says "set" whatever it holds (the API already
// answers "<set>"). Built on console.js's helpers; data reaches the page as text only.
'use strict';

(() => {
  const {el, api, problem, Unauthorized} = window.belayConsole;
  const $ = (id) => document.getElementById(id);

  let loading = 0; // the newest load; an older answer arriving late is dropped

  async function open() {
    $('config-view').hidden = false;
    $('nav-config').setAttribute('aria-expanded', 'true');
    $('config-view').scrollIntoView({block: 'nearest'});
    await load();
  }

  function close() {
    loading++;
    $('config-view').hidden = true;
    $('nav-config').setAttribute('aria-expanded', 'false');
    // Contacts are personal data: nothing of the document stays in the page once closed.
    $('config-body').replaceChildren();
    $('config-raw').textContent = '';
    $('config-error').textContent = '';
    showRaw(false);
  }

  async function load() {
    const mine = ++loading;
    $('config-error').textContent = '';
    $('config-heading').textContent = 'Configuration (loading…)';
    try {
      const res = await api('/api/v1/config');
      if (mine !== loading) return;
      if (!res.ok) return failed(`Configuration: ${await problem(res)}`);
      const text = await res.text();
      if (mine !== loading) return;
      const doc = JSON.parse(text);
      const org = doc && Array.isArray(doc.orgs) ? doc.orgs[0] : null;
      if (!org) return failed('Configuration: the answer holds no org');
      draw(org);
      $('config-raw').textContent = indented(text);
    } catch (e) {
      if (!(e instanceof Unauthorized) && mine === loading) failed(`Configuration: ${e.message}`);
    }
  }

  function failed(message) {
    $('config-heading').textContent = 'Configuration';
    $('config-error').textContent = message;
    $('config-body').replaceChildren();
    $('config-raw').textContent = '';
  }

  const toggleRaw = () => showRaw($('config-raw-toggle').getAttribute('aria-pressed') !== 'true');

  function showRaw(raw) {
    $('config-raw-toggle').setAttribute('aria-pressed', String(raw));
    $('config-raw').hidden = !raw;
    $('config-body').hidden = raw;
  }

  // The answer's own text, a line per member and element: numbers stay as the node wrote
  // them ("30.0"), which JSON.parse and JSON.stringify would not keep.
  function indented(text) {
    let out = '';
    let depth = 0;
    let inString = false;
    const line = () => '\n' + '  '.repeat(depth);
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        out += c;
        if (c === '\\') out += text[++i];
        else if (c === '"') inString = false;
      } else if (c === '"') {
        out += c;
        inString = true;
      } else if ((c === '{' || c === '[') && (text[i + 1] === '}' || text[i + 1] === ']')) {
        out += c + text[++i];
      } else if (c === '{' || c === '[') {
        depth++;
        out += c + line();
      } else if (c === '}' || c === ']') {
        depth--;
        out += line() + c;
      } else if (c === ',') {
        out += c + line();
      } else if (c === ':') {
        out += ': ';
      } else if (!/\s/.test(c)) {
        out += c;
      }
    }
    return out;
  }

  // ---- drawing ------------------------------------------------------------------------

  const list = (items) => (Array.isArray(items) ? items : []);
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + 's'}`;
  const secret = (value) => (value ? 'set' : null);

  // 90 → "90 s", 600 → "10 min", 7200 → "2 h", 86400 → "1 d": the units the file's
  // author most likely wrote.
  function seconds(s) {
    if (s === null || s === undefined) return null;
    if (s === 0) return '0 s';
    for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60]])
      if (s % size === 0) return `${s / size} ${unit}`;
    return `${s} s`;
  }

  const after = (s) => (s > 0 ? `after ${seconds(s)}` : 'at once');

  // A name-value list; rows whose value is null or undefined are left out.
  function facts(rows) {
    const shown = rows.filter(([, value]) => value !== null && value !== undefined && value !== '');
    return el('dl', {className: 'facts'},
      ...shown.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, value)]));
  }

  function section(id, title, items, empty, card) {
    const all = list(items);
    return el('section', {className: 'config-section', dataset: {section: id}},
      el('h3', {}, title, ' ', el('span', {className: 'count'}, `(${all.length})`)),
      all.length ? el('div', {className: 'config-cards'}, ...all.map(card)) : el('p', {className: 'empty'}, empty));
  }

  function cardOf(kind, name, ...children) {
    return el('article', {className: `config-card ${kind}`, dataset: {name}}, ...children);
  }

  function draw(org) {
    const keys = list(org.apiKeys).length;
    $('config-heading').textContent = `Configuration of ${org.name}`;
    $('config-body').replaceChildren(
      facts([['Org', org.name], ['State', org.disabled ? 'disabled' : null],
        ['API keys', keys ? `${plural(keys, 'key')} set` : 'none']]),
      section('users', 'Users', org.users, 'No users.', userCard),
      section('schedules', 'Schedules', org.schedules, 'No schedules.', scheduleCard),
      section('policies', 'Escalation policies', org.policies, 'No escalation policies.', policyCard),
      section('channels', 'Channels', org.channels, 'No channels.', channelCard),
      section('integrations', 'Integrations', org.integrations, 'No integrations.', integrationCard),
      section('heartbeats', 'Heartbeats', org.heartbeats, 'No heartbeat monitors.', heartbeatCard),
      el('p', {className: 'sub'}, 'Schedule overrides and maintenance windows are not part of the ' +
        'configuration: the On call cards and the maintenance banner show them.'));
  }

  function userCard(u) {
    const contacts = list(u.contacts);
    const rules = list(u.rules);
    return cardOf('user', u.name,
      el('h4', {}, u.name, u.fullName ? el('span', {className: 'sub'}, u.fullName) : null),
      facts([['Time zone', u.timeZone]]),
      el('h5', {}, 'Contacts'),
      contacts.length ? el('ul', {className: 'contacts'}, ...contacts.map((c) =>
        el('li', {dataset: {contact: c.name}},
          el('strong', {}, c.name), `: ${c.channel} → `, el('span', {className: 'to'}, c.to),
          c.statusUpdates ? el('span', {className: 'tag'}, 'status updates') : null)))
        : el('p', {className: 'empty'}, 'No contacts.'),
      el('h5', {}, 'Notification rules'),
      rules.length ? el('ol', {className: 'rules'}, ...rules.map((r) =>
        el('li', {}, `${capital(after(r.delaySeconds))}: ${r.contact}`)))
        : el('p', {className: 'empty'}, 'No rules.'));
  }

  const ROTATION_UNITS = {hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month'};

  function rotation(r) {
    if (!r) return null;
    const unit = ROTATION_UNITS[r.type] || r.type;
    const length = r.length || 1;
    return `${r.type}: ${plural(length, unit)} a turn, from ${r.start}`;
  }

  function restrictions(items) {
    if (!list(items).length) return 'any time';
    return items.map((r) => `${list(r.days).length ? r.days.join(', ') : 'every day'} ${r.start}–${r.end}`).join('; ');
  }

  function scheduleCard(s) {
    const layers = list(s.layers);
    return cardOf('schedule-config', s.name,
      el('h4', {}, s.name, el('span', {className: 'sub'}, s.timeZone)),
      layers.length ? el('ol', {className: 'layers'}, ...layers.map((l) =>
        el('li', {dataset: {layer: l.name}},
          el('strong', {}, l.name),
          facts([['Rotation', rotation(l.rotation)], ['Order', list(l.users).join(' → ')],
            ['When', restrictions(l.restrictions)]]))))
        : el('p', {className: 'empty'}, 'No layers.'));
  }

  function target(t) {
    if (t.user) return `user ${t.user}`;
    if (t.schedule) return `whoever is on call in ${t.schedule}`;
    return `${t.channel} → ${t.to}`;
  }

  function policyCard(p) {
    const steps = list(p.steps);
    const repeat = p.repeat > 0
      ? `${plural(p.repeat, 'time')}${p.repeatDelaySeconds !== null && p.repeatDelaySeconds !== undefined
        ? ', ' + after(p.repeatDelaySeconds) : ''}`
      : 'no';
    return cardOf('policy', p.name,
      el('h4', {}, p.name),
      el('ol', {className: 'steps'}, ...steps.map((s, i) =>
        el('li', {},
          el('strong', {}, `Step ${i + 1}`), `, ${after(s.delaySeconds)}: `,
          list(s.targets).map(target).join('; ')))),
      facts([['Repeat', repeat], ['Grace', seconds(p.graceSeconds)],
        ['Reopen within', p.reopenSeconds ? seconds(p.reopenSeconds) : null]]));
  }

  function throttle(windows) {
    if (!Array.isArray(windows)) return null;
    if (!windows.length) return 'none';
    return windows.map((w) => `${w.count} per ${seconds(w.seconds)}`).join(', ');
  }

  function channelCard(c) {
    return cardOf('channel-config', c.name,
      el('h4', {}, c.name, el('span', {className: 'sub'}, c.type)),
      facts([['URL', c.url], ['Secret', secret(c.secret)], ['Signing secret', secret(c.signingSecret)],
        ['Account', c.account], ['From', c.from],
        ['Throttle', throttle(c.throttle)], ['Status throttle', throttle(c.statusThrottle)],
        ['Bundle', c.bundle === undefined ? null : c.bundle ? 'yes' : 'no'],
        ['Attempts', c.maxAttempts],
        ['Retry', c.retryBaseSeconds === undefined ? null
          : `from ${seconds(c.retryBaseSeconds)} up to ${seconds(c.retryCapSeconds)}`],
        ['Timeout', seconds(c.timeoutSeconds)], ['Fails over to', c.failoverTo]]));
  }

  function integrationCard(i) {
    const by = i.grouping ? list(i.grouping.by) : [];
    return cardOf('integration', i.name,
      el('h4', {}, i.name, el('span', {className: 'sub'}, i.type)),
      facts([['Key', secret(i.key)], ['Policy', i.policy],
        ['Grouping', by.length ? `by ${by.join(', ')}` : 'none: each alert its own incident'],
        ['Shadow', i.shadow ? 'yes: runs and records, sends nothing' : null],
        ['Rate limit', i.rateLimitPerMinute ? `${i.rateLimitPerMinute} a minute per node` : null],
        ['Heartbeat', i.heartbeat]]));
  }

  function heartbeatCard(h) {
    return cardOf('heartbeat-config', h.name,
      el('h4', {}, h.name),
      facts([['Key', secret(h.key)], ['Period', seconds(h.periodSeconds)], ['Grace', seconds(h.graceSeconds)],
        ['Policy', h.policy], ['Never pinged', h.alertIfNeverPinged ? 'alerts' : 'waits for a first ping']]));
  }

  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  $('nav-config').addEventListener('click', open);
  $('config-close').addEventListener('click', close);
  $('config-raw-toggle').addEventListener('click', toggleRaw);
  window.belayConsole.closeConfig = close;
})();
