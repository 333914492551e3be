// The audit log view (docs/security.md#audit-log), for admins: GET /api/v1/audit, newest
// first, a page of 50 at a time with "Older rows" for the next. What changed is shown
// as the API gives it (kinds and names; an audit row never holds a secret). Built on
// console.js's helpers; data reaches the page as text only.
'use strict';

(() => {
  const {el, api, problem, localTime, Unauthorized} = window.belayConsole;
  const $ = (id) => document.getElementById(id);
  const PAGE = 50;

  let loading = 0; // the newest load; an older answer arriving late is dropped
  let next = null; // the cursor of the next (older) page

  async function open() {
    $('audit-view').hidden = false;
    $('nav-audit').setAttribute('aria-expanded', 'true');
    $('audit-view').scrollIntoView({block: 'nearest'});
    $('audit').tBodies[0].replaceChildren();
    next = null;
    await load();
  }

  function close() {
    loading++;
    $('audit-view').hidden = true;
    $('nav-audit').setAttribute('aria-expanded', 'false');
    $('audit').tBodies[0].replaceChildren();
    $('audit-error').textContent = '';
    $('audit-more').hidden = true;
  }

  async function load() {
    const mine = ++loading;
    $('audit-error').textContent = '';
    const after = next ? `&after=${encodeURIComponent(next)}` : '';
    try {
      const res = await api(`/api/v1/audit?limit=${PAGE}${after}`);
      if (mine !== loading) return;
      if (!res.ok) {
        $('audit-error').textContent = `Audit log: ${await problem(res)}`;
        return;
      }
      const page = await res.json();
      if (mine !== loading) return;
      $('audit').tBodies[0].append(...page.audit.map(row));
      next = page.next;
      $('audit-more').hidden = !next;
    } catch (e) {
      if (!(e instanceof Unauthorized) && mine === loading) $('audit-error').textContent = `Audit log: ${e.message}`;
    }
  }

  function row(r) {
    const object = r.object ? `${r.object.kind} ${r.object.name}` : '';
    return el('tr', {dataset: {auditId: String(r.id), action: r.action}},
      el('td', {className: 'num'}, r.id),
      el('td', {className: 'nowrap'}, el('time', {dateTime: r.at}, localTime(Date.parse(r.at)))),
      el('td', {className: 'actor'}, r.actor),
      el('td', {}, r.via),
      el('td', {className: 'action'}, r.action),
      el('td', {}, object),
      el('td', {className: 'changes'}, r.changes ? JSON.stringify(r.changes) : ''));
  }

  $('nav-audit').addEventListener('click', open);
  $('audit-close').addEventListener('click', close);
  $('audit-more').addEventListener('click', load);
  window.belayConsole.closeAudit = close;
})();
