// The xdshub dashboard: plain JavaScript, no build step, no network beyond the
// hub. Each page reads the hub's HTTP API; the event stream (/v1/ops/events)
// tells it when to read again. A stream's end raises no event, so the node
// pages also re-read /v1/xds/nodes every few seconds and redraw when a node's
// connected state moved. With ACLs on, the token given at the login prompt is
// kept in sessionStorage (this tab only, as Consul's UI does) and sent as
// X-Consul-Token on every request and as ?token= on the event stream, which
// EventSource cannot give headers.
'use strict';

const KINDS = [
  'service-defaults',
  'service-resolver',
  'service-router',
  'service-splitter',
  'ingress-gateway',
  'http-route',
  'mesh',
  'service-intentions',
];
const TYPES = [
  ['clusters', 'CDS'],
  ['endpoints', 'EDS'],
  ['listeners', 'LDS'],
  ['routes', 'RDS'],
  ['secrets', 'SDS'],
];
const TOKEN_KEY = 'xdshub-token';
const NODE_POLL_MS = 2000;
const RETRY_MS = 1000;
const main = document.getElementById('main');
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
const pill = (cls, text) => `<span class="pill ${esc(cls)}">${esc(text ?? cls)}</span>`;
const token = () => sessionStorage.getItem(TOKEN_KEY) || '';
const td = (...cells) => cells.map((c) => `<td>${c}</td>`).join('');

function table(id, heads, rows, empty = 'none') {
  const body = rows.join('') || `<tr><td colspan="${heads.length}" class="muted">${empty}</td></tr>`;
  return `<table id="${id}"><tr>${heads.map((h) => `<th>${h}</th>`).join('')}</tr>${body}</table>`;
}

/** A read the hub refused for want of a token (or of a token with the right): the page shows the login prompt. */
class TokenNeeded extends Error {}

function withToken(headers = {}) {
  return token() ? { ...headers, 'X-Consul-Token': token() } : headers;
}

async function send(path, init = {}) {
  return fetch(path, { ...init, headers: withToken(init.headers) });
}

async function get(path, { missingOk = false } = {}) {
  const res = await send(path);
  if (res.status === 401 || res.status === 403) throw new TokenNeeded(await res.text());
  if (missingOk && res.status === 404) return null;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

function worst(checks) {
  const order = ['passing', 'warning', 'critical', 'maintenance'];
  return checks.reduce((w, c) => (order.indexOf(c.Status) > order.indexOf(w) ? c.Status : w), 'passing');
}

function loginPage(message) {
  const why = token() ? 'The hub refused the token given:' : 'This hub has ACLs on: a token is needed to see it.';
  const error = message ? `<pre class="critical" id="login-error">${esc(message)}</pre>` : '';
  return `<section id="login"><h2>Token needed</h2><p>${esc(why)}</p>${error}
    <form id="login-form"><label>ACL token (SecretID)
      <input id="token" type="password" autocomplete="off" spellcheck="false"></label>
    <button id="login-button" type="submit">Log in</button></form>
    <p class="muted">Kept in this browser tab only (sessionStorage) and sent as X-Consul-Token.
    Reading the dashboard needs operator:read, and the read rights of what each page shows.</p></section>`;
}

/**
 * Intentions as a directed graph: services on a circle, an arrow per intention
 * (green allow, red deny, dashed: per-request permissions).
 */
function intentionGraph(services, intentions) {
  const names = [...new Set([...services, ...intentions.flatMap((i) => [i.SourceName, i.DestinationName])])].sort();
  if (!intentions.length) return '<p class="muted" id="intention-graph">no intentions</p>';
  const size = Math.max(320, Math.min(720, 90 * names.length));
  const r = size / 2 - 70;
  const at = new Map(
    names.map((n, i) => {
      const a = (2 * Math.PI * i) / names.length - Math.PI / 2;
      return [n, [size / 2 + r * Math.cos(a), size / 2 + r * Math.sin(a)]];
    }),
  );
  const edges = intentions.map((i) => {
    const [x1, y1] = at.get(i.SourceName);
    const [x2, y2] = at.get(i.DestinationName);
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const [dx, dy] = [((x2 - x1) / len) * 28, ((y2 - y1) / len) * 28];
    const action = i.Permissions?.length ? 'l7' : String(i.Action || 'allow').toLowerCase();
    const edge = `${esc(i.SourceName)}→${esc(i.DestinationName)}`;
    return `<line class="edge ${esc(action)}" data-edge="${edge}"
      x1="${x1 + dx}" y1="${y1 + dy}" x2="${x2 - dx}" y2="${y2 - dy}" marker-end="url(#arrow-${esc(action)})">
      <title>${edge}: ${esc(action)}</title></line>`;
  });
  const marker = (a) => `<marker id="arrow-${a}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7"
    orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="head ${a}"/></marker>`;
  const nodes = names.map((n) => {
    const [x, y] = at.get(n);
    return `<g class="svc${services.includes(n) ? '' : ' unknown'}" data-graph-node="${esc(n)}">
      <circle cx="${x}" cy="${y}" r="26"/>
      <text x="${x}" y="${y + 42}" text-anchor="middle">${esc(n)}</text></g>`;
  });
  return `<svg id="intention-graph" viewBox="0 0 ${size} ${size}" width="${size}" height="${size}" role="img"
    aria-label="intentions">
    <defs>${['allow', 'deny', 'l7'].map(marker).join('')}</defs>${edges.join('')}${nodes.join('')}</svg>
    <p class="muted legend"><span class="key allow"></span>allow <span class="key deny"></span>deny
    <span class="key l7"></span>per-request permissions · grey: not in the catalog</p>`;
}

const pages = {
  async services() {
    const [catalog, intentions] = await Promise.all([get('/v1/catalog/services'), get('/v1/connect/intentions')]);
    const names = Object.keys(catalog).sort();
    const rows = await Promise.all(
      names.map(async (name) => {
        const instances = await get(`/v1/health/service/${encodeURIComponent(name)}`);
        const cells = instances
          .map(
            (i) => `${pill(worst(i.Checks), worst(i.Checks))}${esc(i.Node.Node)}
            ${esc(i.Service.Address || i.Node.Address)}:${esc(i.Service.Port)}
            <span class="muted">${esc(i.Service.ID)}</span>`,
          )
          .join('<br>');
        const health = cells || '<span class="muted">no instances</span>';
        return `<tr data-service="${esc(name)}">${td(`<b>${esc(name)}</b>`, instances.length, health)}</tr>`;
      }),
    );
    return `<h2>Services</h2>${table('services', ['service', 'instances', 'health'], rows)}
      <h2>Intentions</h2>${intentionGraph(names, intentions)}`;
  },

  async config() {
    const all = await Promise.all(KINDS.map(async (k) => [k, await get(`/v1/config/${k}`)]));
    const rows = all.flatMap(([k, entries]) =>
      entries.map((e) => {
        const entry = `<pre>${esc(JSON.stringify(e, null, 1))}</pre>`;
        return `<tr>${td(esc(k), `<b>${esc(e.Name)}</b>`, e.ModifyIndex, entry)}</tr>`;
      }),
    );
    return `<h2>Config entries</h2>${table('config', ['kind', 'name', 'index', 'entry'], rows)}`;
  },

  async clients() {
    const [streams, nodes] = await Promise.all([get('/v1/xds/clients'), get('/v1/xds/nodes')]);
    lastConnected = connectedKey(nodes);
    const rows = streams.map(streamRow);
    const seen = new Set(streams.map((s) => s.node?.id));
    const offline = nodes.filter((n) => !n.connected && !seen.has(n.id)).map(offlineRow);
    const states = ['all', 'connected', 'disconnected', 'NACK'].map(
      (s) => `<option${s === filter.state ? ' selected' : ''}>${s}</option>`,
    );
    return `<h2>xDS nodes</h2><p class="filters">
      <input id="filter" type="search" placeholder="filter: node, cluster, agent, type…" value="${esc(filter.text)}">
      <select id="filter-state">${states.join('')}</select><span id="filter-count" class="muted"></span></p>
      ${table('clients', ['node', 'state', 'stream', 'per type: ACK / NACK'], [...rows, ...offline], 'no node yet')}`;
  },

  async node(id) {
    const history = get(`/v1/xds/history/${encodeURIComponent(id)}`, { missingOk: true });
    const [h, streams, nodes] = await Promise.all([history, get('/v1/xds/clients'), get('/v1/xds/nodes')]);
    lastConnected = connectedKey(nodes);
    const mine = streams.filter((s) => s.node?.id === id);
    const known = nodes.find((n) => n.id === id);
    const cluster = mine[0]?.node?.cluster ?? known?.cluster;
    const query = !mine.length && cluster ? `?cluster=${encodeURIComponent(cluster)}` : '';
    const config = await get(`/v1/xds/config/${encodeURIComponent(id)}${query}`, { missingOk: true });
    const state = mine.length ? pill('connected') : pill('disconnected');
    const about = mine.map((s) => esc(`· stream ${s.stream} ${s.transport} ${s.variant} since ${s.connectedAt}`));
    return `<h2>Node ${esc(id)} ${state}</h2>
      <p class="muted">${esc(cluster)} ${esc(mine[0]?.node?.userAgent ?? known?.userAgent)} ${about.join(' ')}</p>
      <h3>Resources</h3>${resourceTable(config, mine)}
      <h3>Config <span class="muted">(what the hub serves this node now, as proxy-config shows it)</span></h3>
      ${configView(config)}
      <h3>History</h3>${h ? historyTable(h) : '<p class="muted">no history</p>'}`;
  },

  async 'dry-run'() {
    const sample = JSON.stringify(
      { Method: 'PUT', Path: '/v1/config', Body: { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' } },
      null,
      2,
    );
    return `<h2>Dry run</h2><p class="muted">Paste a change as the request it would be (Method, Path, Body). Nothing is written.</p>
      <textarea id="change">${esc(sessionStorage.getItem('change') || sample)}</textarea><p><button id="run">Dry run</button></p><div id="prediction"></div>`;
  },

  async rollouts() {
    const list = await get('/v1/xds/rollouts');
    const rows = list.map((r) => {
      const live = r.state === 'canary' || r.state === 'held';
      const actions = live
        ? `<button data-rollback="${esc(r.id)}">Roll back</button><button data-proceed="${esc(r.id)}">Proceed</button>`
        : '';
      return `<tr><td>${esc(r.id)}</td><td>${pill(r.state)}</td><td>${esc(r.command.type)}</td><td>${esc(r.canaries.join(', '))}</td><td>${esc(r.index)}</td><td>${esc(r.reason)}</td><td>${actions}</td></tr>`;
    });
    return `<h2>Rollouts</h2><table id="rollouts"><tr><th>id</th><th>state</th><th>change</th><th>canaries</th><th>index</th><th>reason</th><th></th></tr>${rows.join('') || '<tr><td colspan="7" class="muted">none</td></tr>'}</table><p id="action-error"></p>`;
  },
};

// --- the nodes table, its filter, and the connected-state poll

const filter = { text: '', state: 'all' };
let lastConnected = '';
const connectedKey = (nodes) => nodes.map((n) => `${n.id}:${n.connected}`).join(',');

function typeCell(t) {
  const state = t.lastNack ? 'NACK' : t.pendingNonce ? 'pending' : 'ACK';
  const nack = t.lastNack
    ? `<div class="nack-msg">NACK: ${esc(t.lastNack.message)} <span class="muted">${esc(t.lastNack.at)}</span></div>`
    : '';
  const names = t.names.length ? esc(`${t.names.length} names`) : '';
  return `<div>${pill(state, `${t.type} ${state}`)} ${t.wildcard ? '*' : ''} ${names}${nack}</div>`;
}

const nodeCell = (id, cluster, agent) =>
  `<a href="#node/${encodeURIComponent(id)}">${esc(id)}</a><div class="muted">${esc(cluster)} ${esc(agent)}</div>`;

function streamRow(s) {
  const id = s.node ? s.node.id : '';
  const nacked = s.types.some((t) => t.lastNack);
  const search = [id, s.node?.cluster, s.node?.userAgent, s.transport, s.variant, ...s.types.map((t) => t.type)];
  const attrs = `data-node="${esc(id)}" data-state="connected${nacked ? ' NACK' : ''}"`;
  const stream = esc(`${s.transport} ${s.variant} ${s.api}`);
  const types = s.types.map(typeCell).join('');
  const cells = td(nodeCell(id, s.node?.cluster, s.node?.userAgent), pill('connected'), stream, types);
  return `<tr ${attrs} data-search="${esc(search.join(' ').toLowerCase())}">${cells}</tr>`;
}

function offlineRow(n) {
  const search = [n.id, n.cluster, n.userAgent].join(' ').toLowerCase();
  return `<tr data-node="${esc(n.id)}" data-state="disconnected" data-search="${esc(search)}">
    ${td(nodeCell(n.id, n.cluster, n.userAgent), pill('disconnected'))}<td class="muted">no stream</td>
    <td class="muted">last push ${esc(n.lastPush?.at)}</td></tr>`;
}

function applyFilter() {
  const rows = [...main.querySelectorAll('#clients tr[data-node]')];
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const row of rows) {
    const state = filter.state === 'all' || row.dataset.state.split(' ').includes(filter.state);
    const ok = state && words.every((w) => row.dataset.search.includes(w));
    row.hidden = !ok;
    if (ok) shown++;
  }
  const count = document.getElementById('filter-count');
  if (count) count.textContent = `${shown} of ${rows.length} node(s)`;
}

// --- one node: its resources with versions and ACK/NACK, its config, its history

/** Per resource: the version the hub serves, the one the client holds (ACKed), and so its state. */
function resourceTable(config, streams) {
  if (!config) return '<p class="muted">the hub knows no config for this node</p>';
  const rows = TYPES.flatMap(([rest, short]) => {
    const types = streams.flatMap((s) => s.types.filter((t) => t.type === short));
    return Object.entries(config.resources[rest] ?? {}).map(([name, r]) => {
      const held = types.map((t) => t.acked[name]).find((v) => v !== undefined);
      const nack = types.find((t) => t.lastNack);
      const state = !streams.length ? 'offline' : held === r.version ? 'ACK' : nack ? 'NACK' : 'pending';
      const msg = state === 'NACK' ? `<div class="nack-msg">${esc(nack.lastNack.message)}</div>` : '';
      const code = (v) => `<code>${esc(v)}</code>`;
      const cells = td(esc(short), esc(name), code(r.version), code(held ?? '—'), pill(state) + msg);
      return `<tr data-resource="${esc(short)}/${esc(name)}">${cells}</tr>`;
    });
  });
  return table('resources', ['type', 'name', 'version served', 'version held (ACKed)', 'state'], rows);
}

function configView(config) {
  if (!config) return '';
  const count = (rest) => Object.keys(config.resources[rest] ?? {}).length;
  const tabs = TYPES.map(
    ([rest]) =>
      `<button class="tab${rest === 'clusters' ? ' active' : ''}" data-config-tab="${rest}">
      ${rest} (${count(rest)})</button>`,
  );
  const panes = TYPES.map(([rest]) => {
    const list = Object.entries(config.resources[rest] ?? {}).map(([name, r]) => ({ name, ...r }));
    const hidden = rest === 'clusters' ? '' : ' hidden';
    return `<pre class="config-pane" data-config-pane="${rest}"${hidden}>${esc(JSON.stringify(list, null, 2))}</pre>`;
  }).join('');
  return `<div id="config-view">${tabs.join('')}${panes}</div>`;
}

function historyTable(h) {
  const records = h.records.slice().reverse();
  const rows = records.map((r, i) => {
    const nack = () => `${pill('NACK')}<div class="nack-msg">${esc(r.answer.message)}</div>`;
    const answer = r.answer ? (r.answer.ack ? pill('ACK') : nack()) : pill('pending');
    const prev = records.slice(i + 1).find((x) => x.index !== r.index);
    const span = prev ? `${esc(prev.index)}:${esc(r.index)}` : '';
    const diff = prev ? `<button data-diff="${span}">diff ${esc(prev.index)}→${esc(r.index)}</button>` : '';
    const names = Object.keys(r.resources).map(esc).join(', ');
    return `<tr>${td(esc(r.at), esc(r.hub), esc(r.index), esc(r.type), names, answer, diff)}</tr>`;
  });
  const heads = ['time', 'hub', 'index', 'type', 'resources', 'answer', ''];
  return `${table('history', heads, rows)}<pre id="diff" class="muted">pick a diff</pre>`;
}

const shown = (v) => (v === undefined ? '(none)' : JSON.stringify(v));

// Envoy's verdict on what a group of Envoys would get (none: not Envoys, or no Envoy binary configured).
function envoyVerdict(v) {
  if (!v) return '<span class="muted">not checked</span>';
  if (v.ok) return pill('passing', `Envoy accepts (${(v.ms / 1000).toFixed(2)} s)`);
  if (v.error !== undefined) return pill('warning', `not validated: ${v.error}`);
  return v.rejected
    .map(
      (r) => `${pill('critical', 'Envoy rejects')} ${r.name ? `${esc(r.type)} ${esc(r.name)}: ` : ''}${esc(r.message)}`,
    )
    .join('<br>');
}

// Each distinct diff once, with the nodes that get it (a fleet that sees the same change is one row).
function renderPrediction(p) {
  if (!p.dryRun) return `<pre>${esc(JSON.stringify(p, null, 2))}</pre>`;
  const affected = p.diffs.reduce((n, d) => n + d.nodes.length, 0);
  const offline = new Set(p.offline);
  const verdict = p.ok
    ? pill('passing', p.changes ? 'would apply' : 'would change nothing')
    : pill('critical', `would be refused: ${p.error?.message ?? ''}`);
  const head = `<p>${verdict} at index ${esc(p.index)} — ${affected} node(s) affected in ${p.diffs.length} distinct diff(s), ${p.unaffected.length} unaffected (${p.ms.toFixed(1)} ms)</p>`;
  const name = (n) =>
    `<span class="node">${esc(n)}${offline.has(n) ? ' <span class="muted">offline</span>' : ''}</span>`;
  const nodeList = (nodes) =>
    nodes.length <= 12
      ? nodes.map(name).join(' ')
      : `${nodes.slice(0, 12).map(name).join(' ')}<details><summary>all ${nodes.length}</summary>${nodes.map(name).join(' ')}</details>`;
  const rows = p.diffs.map((d) => {
    const items = [
      ...d.added.map((a) => `${pill('passing', 'added')} ${esc(a.type)} ${esc(a.name)}`),
      ...d.removed.map((a) => `${pill('critical', 'removed')} ${esc(a.type)} ${esc(a.name)}`),
      ...d.changed.map(
        (c) =>
          `${pill('warning', 'changed')} ${esc(c.type)} ${esc(c.name)}<pre>${esc(c.fields.map((f) => `${f.path}: ${shown(f.before)} → ${shown(f.after)}`).join('\n'))}</pre>`,
      ),
      ...(d.subscribes ?? []).map(
        (s) =>
          `${pill('passing', 'subscribes')} ${esc(s.type)} ${esc(s.name)}<details><summary>${s.resource ? 'what it would get' : 'does not exist'}</summary><pre>${esc(JSON.stringify(s.resource, null, 2))}</pre></details>`,
      ),
      ...(d.unsubscribes ?? []).map((u) => `${pill('warning', 'unsubscribes')} ${esc(u.type)} ${esc(u.name)}`),
    ];
    return `<tr><td><b>${d.nodes.length}</b> node(s)<div class="nodes">${nodeList(d.nodes)}</div></td><td>${items.join('<br>')}</td><td class="envoy-verdict">${envoyVerdict(d.envoy)}</td></tr>`;
  });
  const unaffected = p.unaffected.length ? `<p class="muted">unaffected: ${nodeList(p.unaffected)}</p>` : '';
  return `${head}<table id="prediction-table"><tr><th>nodes</th><th>would change</th><th>Envoy</th></tr>${rows.join('')}</table>${unaffected}`;
}

let current = '';
/** Set while the login prompt is up: no page renders until a token passes the probe. */
let loginShown = false;
let rendering = Promise.resolve();
function route() {
  if (loginShown) return rendering;
  const hash = location.hash.slice(1) || 'services';
  const [page, arg] = hash.split('/');
  current = page;
  for (const a of document.querySelectorAll('header nav a')) {
    a.classList.toggle('active', a.getAttribute('href') === `#${page}`);
  }
  return render(page, arg && decodeURIComponent(arg));
}

function showAuth() {
  const who = document.getElementById('whoami');
  const out = '<span class="muted">token set</span> <button id="logout" type="button">Log out</button>';
  who.innerHTML = token() ? out : '';
}

function render(page, arg) {
  rendering = rendering.then(async () => {
    const f = pages[page];
    if (!f) return;
    // A redraw must not take the filter box from under the operator's typing.
    const focused = document.activeElement?.id;
    try {
      main.innerHTML = await f(arg);
      main.dataset.page = page;
      if (page === 'clients') applyFilter();
    } catch (err) {
      if (err instanceof TokenNeeded) return showLogin(err.message);
      main.innerHTML = `<pre class="critical">${esc(err.message)}</pre>`;
    }
    const again = focused && document.getElementById(focused);
    if (again && again !== document.activeElement) again.focus();
  });
  return rendering;
}

async function act(path, init, errorId) {
  const res = await send(path, init);
  const body = await res.text();
  const out = document.getElementById(errorId);
  if (!res.ok && out) out.innerHTML = `<pre class="critical">${esc(res.status)} ${esc(body)}</pre>`;
  return { res, body };
}

main.addEventListener('click', async (e) => {
  const t = e.target;
  if (t.id === 'run') {
    const text = document.getElementById('change').value;
    sessionStorage.setItem('change', text);
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: text };
    const { res, body } = await act('/v1/ops/dry-run', init, 'prediction');
    if (res.ok) document.getElementById('prediction').innerHTML = renderPrediction(JSON.parse(body));
  } else if (t.dataset.diff) {
    const [from, to] = t.dataset.diff.split(':');
    const node = decodeURIComponent(location.hash.split('/')[1]);
    const d = await get(`/v1/xds/diff/${encodeURIComponent(node)}?from=${from}&to=${to}`);
    document.getElementById('diff').textContent = JSON.stringify(d, null, 2);
  } else if (t.dataset.configTab) {
    const tab = t.dataset.configTab;
    for (const p of main.querySelectorAll('[data-config-pane]')) p.hidden = p.dataset.configPane !== tab;
    for (const b of main.querySelectorAll('[data-config-tab]')) b.classList.toggle('active', b === t);
  } else if (t.dataset.rollback || t.dataset.proceed) {
    const id = t.dataset.rollback || t.dataset.proceed;
    const verb = t.dataset.rollback ? 'rollback' : 'proceed';
    await act(`/v1/xds/rollouts/${encodeURIComponent(id)}/${verb}`, { method: 'POST' }, 'action-error');
  }
});

main.addEventListener('input', (e) => {
  if (e.target.id === 'filter') filter.text = e.target.value;
  else if (e.target.id === 'filter-state') filter.state = e.target.value;
  else return;
  applyFilter();
});

main.addEventListener('submit', (e) => {
  if (e.target.id !== 'login-form') return;
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById('token').value.trim());
  showAuth();
  start();
});

document.getElementById('whoami').addEventListener('click', (e) => {
  if (e.target.id !== 'logout') return;
  sessionStorage.removeItem(TOKEN_KEY);
  showAuth();
  start();
});

// --- live updates: re-read the page the event concerns

const WATCH = {
  index: ['services', 'config', 'clients'],
  push: ['clients', 'node'],
  answer: ['clients', 'node'],
  rollout: ['rollouts'],
  stream: ['clients', 'node'],
};
let es;
let pending;
const setStatus = (text) => (document.getElementById('status').textContent = text);

function disconnect() {
  es?.close();
  es = undefined;
}

function soon() {
  if (pending) return;
  // Bursts of events cost one re-read.
  pending = setTimeout(() => {
    pending = undefined;
    route();
  }, 50);
}

function connect() {
  disconnect();
  const source = new EventSource(`/v1/ops/events${token() ? `?token=${encodeURIComponent(token())}` : ''}`);
  es = source;
  source.onopen = () => {
    setStatus('live');
    route();
  };
  source.onerror = async () => {
    if (es !== source) return;
    setStatus('reconnecting…');
    // A token deleted or expired while the stream was open: EventSource only sees an error, the probe sees the 403.
    if (source.readyState === EventSource.CLOSED) setTimeout(start, RETRY_MS);
  };
  // The hub ends the stream with `denied` once the token stops granting operator:read:
  // the probe then shows the hub's own refusal (`ACL not found`, or the missing right).
  source.addEventListener('denied', () => {
    if (es !== source) return;
    disconnect();
    start();
  });
  for (const [type, pagesFor] of Object.entries(WATCH)) {
    source.addEventListener(type, () => pagesFor.includes(current) && soon());
  }
}

// A stream's end is an event (`stream`); the node pages also compare connected states every few seconds
// (a stream the hub closed before this page's event stream opened, a missed event).
setInterval(async () => {
  if (!es || (current !== 'clients' && current !== 'node') || document.hidden) return;
  try {
    if (connectedKey(await get('/v1/xds/nodes')) !== lastConnected) soon();
  } catch (err) {
    if (err instanceof TokenNeeded) showLogin(err.message);
  }
}, NODE_POLL_MS);

function showLogin(message) {
  loginShown = true;
  disconnect();
  main.innerHTML = loginPage(message);
  main.dataset.page = 'login';
  setStatus('token needed');
  document.getElementById('token')?.focus();
}

// Reads filter what a token may not see (an anonymous caller gets empty lists, not a 403), so the
// dashboard asks first for what it needs as a whole: operator:read, as /v1/xds/nodes and the event stream need.
async function start() {
  setStatus('connecting…');
  try {
    await get('/v1/xds/nodes');
  } catch (err) {
    if (err instanceof TokenNeeded) return showLogin(err.message);
    setStatus('hub unreachable: retrying');
    setTimeout(start, RETRY_MS);
    return;
  }
  loginShown = false;
  await route();
  if (!loginShown) connect();
}

window.addEventListener('hashchange', route);
showAuth();
start();
