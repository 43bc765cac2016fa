// The xdshub dashboard: plain JavaScript, no build step, no network beyond the
// hub. Each page reads the hub's HTTP API; the event stream (/v1/ops/events)
// tells it when to read again, so nothing polls.
'use strict';

const KINDS = ['service-defaults', 'service-resolver', 'service-router', 'service-splitter', 'ingress-gateway', 'http-route', 'mesh', 'service-intentions'];
const main = document.getElementById('main');
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const pill = (cls, text) => `<span class="pill ${esc(cls)}">${esc(text ?? cls)}</span>`;

async function get(path) {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

function worst(checks) {
  const order = ['passing', 'warning', 'critical', 'maintenance'];
  return checks.reduce((w, c) => (order.indexOf(c.Status) > order.indexOf(w) ? c.Status : w), 'passing');
}

const pages = {
  async services() {
    const names = Object.keys(await get('/v1/catalog/services')).sort();
    const rows = await Promise.all(
      names.map(async (name) => {
        const instances = await get(`/v1/health/service/${encodeURIComponent(name)}`);
        const cells = instances
          .map((i) => `${pill(worst(i.Checks), worst(i.Checks))}${esc(i.Node.Node)} ${esc(i.Service.Address || i.Node.Address)}:${esc(i.Service.Port)} <span class="muted">${esc(i.Service.ID)}</span>`)
          .join('<br>');
        return `<tr data-service="${esc(name)}"><td><b>${esc(name)}</b></td><td>${instances.length}</td><td>${cells || '<span class="muted">no instances</span>'}</td></tr>`;
      }),
    );
    return `<h2>Services</h2><table id="services"><tr><th>service</th><th>instances</th><th>health</th></tr>${rows.join('')}</table>`;
  },

  async config() {
    const all = await Promise.all(KINDS.map(async (k) => [k, await get(`/v1/config/${k}`)]));
    const rows = all.flatMap(([k, entries]) => entries.map((e) => `<tr><td>${esc(k)}</td><td><b>${esc(e.Name)}</b></td><td>${e.ModifyIndex}</td><td><pre>${esc(JSON.stringify(e, null, 1))}</pre></td></tr>`));
    return `<h2>Config entries</h2><table id="config"><tr><th>kind</th><th>name</th><th>index</th><th>entry</th></tr>${rows.join('') || '<tr><td colspan="4" class="muted">none</td></tr>'}</table>`;
  },

  async clients() {
    const [streams, nodes] = await Promise.all([get('/v1/xds/clients'), get('/v1/xds/nodes')]);
    const rows = streams.map((s) => {
      const types = s.types
        .map((t) => {
          const state = t.pendingNonce ? 'pending' : 'ACK';
          const nack = t.lastNack ? `<div class="nack-msg">NACK: ${esc(t.lastNack.message)} <span class="muted">${esc(t.lastNack.at)}</span></div>` : '';
          return `<div>${pill(t.lastNack ? 'NACK' : state, `${t.type} ${t.lastNack ? 'NACK' : state}`)} ${t.wildcard ? '*' : ''} ${t.names.length ? esc(`${t.names.length} names`) : ''}${nack}</div>`;
        })
        .join('');
      const id = s.node ? s.node.id : '';
      return `<tr data-node="${esc(id)}"><td><a href="#node/${encodeURIComponent(id)}">${esc(id)}</a><div class="muted">${esc(s.node?.cluster)} ${esc(s.node?.userAgent)}</div></td><td>${esc(s.transport)} ${esc(s.variant)} ${esc(s.api)}</td><td>${types}</td></tr>`;
    });
    const offline = nodes.filter((n) => !n.connected).map((n) => `<tr data-node="${esc(n.id)}"><td><a href="#node/${encodeURIComponent(n.id)}">${esc(n.id)}</a></td><td class="muted">offline</td><td class="muted">last push ${esc(n.lastPush?.at)}</td></tr>`);
    return `<h2>xDS clients</h2><table id="clients"><tr><th>node</th><th>stream</th><th>per type: ACK / NACK</th></tr>${rows.join('')}${offline.join('')}</table>`;
  },

  async node(id) {
    const h = await get(`/v1/xds/history/${encodeURIComponent(id)}`);
    const records = h.records.slice().reverse();
    const rows = records.map((r, i) => {
      const answer = r.answer ? (r.answer.ack ? pill('ACK') : `${pill('NACK')}<div class="nack-msg">${esc(r.answer.message)}</div>`) : pill('pending');
      const prev = records.slice(i + 1).find((x) => x.index !== r.index);
      const diff = prev ? `<button data-diff="${esc(prev.index)}:${esc(r.index)}">diff ${esc(prev.index)}→${esc(r.index)}</button>` : '';
      return `<tr><td>${esc(r.at)}</td><td>${esc(r.hub)}</td><td>${esc(r.index)}</td><td>${esc(r.type)}</td><td>${Object.keys(r.resources).map(esc).join(', ')}</td><td>${answer}</td><td>${diff}</td></tr>`;
    });
    return `<h2>History of ${esc(id)}</h2><table id="history"><tr><th>time</th><th>hub</th><th>index</th><th>type</th><th>resources</th><th>answer</th><th></th></tr>${rows.join('')}</table><pre id="diff" class="muted">pick a diff</pre>`;
  },

  async 'dry-run'() {
    const sample = JSON.stringify({ Method: 'PUT', Path: '/v1/config', Body: { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' } }, null, 2);
    return `<h2>Dry run</h2><p class="muted">Paste a change as the request it would be (Method, Path, Body). Nothing is written.</p>
      <textarea id="change">${esc(sessionStorage.getItem('change') || sample)}</textarea><p><button id="run">Dry run</button></p><div id="prediction"></div>`;
  },

  async rollouts() {
    const list = await get('/v1/xds/rollouts');
    const rows = list.map((r) => {
      const live = r.state === 'canary' || r.state === 'held';
      const actions = live ? `<button data-rollback="${esc(r.id)}">Roll back</button><button data-proceed="${esc(r.id)}">Proceed</button>` : '';
      return `<tr><td>${esc(r.id)}</td><td>${pill(r.state)}</td><td>${esc(r.command.type)}</td><td>${esc(r.canaries.join(', '))}</td><td>${esc(r.index)}</td><td>${esc(r.reason)}</td><td>${actions}</td></tr>`;
    });
    return `<h2>Rollouts</h2><table id="rollouts"><tr><th>id</th><th>state</th><th>change</th><th>canaries</th><th>index</th><th>reason</th><th></th></tr>${rows.join('') || '<tr><td colspan="7" class="muted">none</td></tr>'}</table>`;
  },
};

const shown = (v) => (v === undefined ? '(none)' : JSON.stringify(v));

// Each distinct diff once, with the nodes that get it (a fleet that sees the same change is one row).
function renderPrediction(p) {
  if (!p.dryRun) return `<pre>${esc(JSON.stringify(p, null, 2))}</pre>`;
  const affected = p.diffs.reduce((n, d) => n + d.nodes.length, 0);
  const offline = new Set(p.offline);
  const verdict = p.ok ? pill('passing', p.changes ? 'would apply' : 'would change nothing') : pill('critical', `would be refused: ${p.error?.message ?? ''}`);
  const head = `<p>${verdict} at index ${esc(p.index)} — ${affected} node(s) affected in ${p.diffs.length} distinct diff(s), ${p.unaffected.length} unaffected (${p.ms.toFixed(1)} ms)</p>`;
  const name = (n) => `<span class="node">${esc(n)}${offline.has(n) ? ' <span class="muted">offline</span>' : ''}</span>`;
  const nodeList = (nodes) =>
    nodes.length <= 12 ? nodes.map(name).join(' ') : `${nodes.slice(0, 12).map(name).join(' ')}<details><summary>all ${nodes.length}</summary>${nodes.map(name).join(' ')}</details>`;
  const rows = p.diffs.map((d) => {
    const items = [
      ...d.added.map((a) => `${pill('passing', 'added')} ${esc(a.type)} ${esc(a.name)}`),
      ...d.removed.map((a) => `${pill('critical', 'removed')} ${esc(a.type)} ${esc(a.name)}`),
      ...d.changed.map((c) => `${pill('warning', 'changed')} ${esc(c.type)} ${esc(c.name)}<pre>${esc(c.fields.map((f) => `${f.path}: ${shown(f.before)} → ${shown(f.after)}`).join('\n'))}</pre>`),
    ];
    return `<tr><td><b>${d.nodes.length}</b> node(s)<div class="nodes">${nodeList(d.nodes)}</div></td><td>${items.join('<br>')}</td></tr>`;
  });
  const unaffected = p.unaffected.length ? `<p class="muted">unaffected: ${nodeList(p.unaffected)}</p>` : '';
  return `${head}<table id="prediction-table"><tr><th>nodes</th><th>would change</th></tr>${rows.join('')}</table>${unaffected}`;
}

let current = '';
let rendering = Promise.resolve();
function route() {
  const hash = location.hash.slice(1) || 'services';
  const [page, arg] = hash.split('/');
  current = page;
  for (const a of document.querySelectorAll('header nav a')) a.classList.toggle('active', a.getAttribute('href') === `#${page}`);
  return render(page, arg && decodeURIComponent(arg));
}

function render(page, arg) {
  rendering = rendering.then(async () => {
    const f = pages[page];
    if (!f) return;
    try {
      main.innerHTML = await f(arg);
      main.dataset.page = page;
    } catch (err) {
      main.innerHTML = `<pre class="critical">${esc(err.message)}</pre>`;
    }
  });
  return rendering;
}

main.addEventListener('click', async (e) => {
  const t = e.target;
  if (t.id === 'run') {
    const text = document.getElementById('change').value;
    sessionStorage.setItem('change', text);
    const out = document.getElementById('prediction');
    try {
      const res = await fetch('/v1/ops/dry-run', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      const body = await res.text();
      out.innerHTML = res.ok ? renderPrediction(JSON.parse(body)) : `<pre class="critical">${esc(res.status)} ${esc(body)}</pre>`;
    } catch (err) {
      out.innerHTML = `<pre class="critical">${esc(err.message)}</pre>`;
    }
  } else if (t.dataset.diff) {
    const [from, to] = t.dataset.diff.split(':');
    const node = decodeURIComponent(location.hash.split('/')[1]);
    const d = await get(`/v1/xds/diff/${encodeURIComponent(node)}?from=${from}&to=${to}`);
    document.getElementById('diff').textContent = JSON.stringify(d, null, 2);
  } else if (t.dataset.rollback || t.dataset.proceed) {
    const id = t.dataset.rollback || t.dataset.proceed;
    await fetch(`/v1/xds/rollouts/${encodeURIComponent(id)}/${t.dataset.rollback ? 'rollback' : 'proceed'}`, { method: 'POST' });
  }
});

// Live updates: re-read the page the event concerns.
const WATCH = { index: ['services', 'config', 'clients'], push: ['clients', 'node'], answer: ['clients', 'node'], rollout: ['rollouts'] };
function connect() {
  const status = document.getElementById('status');
  const es = new EventSource('/v1/ops/events');
  es.onopen = () => {
    status.textContent = 'live';
    route();
  };
  es.onerror = () => (status.textContent = 'reconnecting…');
  let pending;
  for (const [type, pagesFor] of Object.entries(WATCH)) {
    es.addEventListener(type, () => {
      if (!pagesFor.includes(current) || pending) return;
      // Bursts of events cost one re-read.
      pending = setTimeout(() => {
        pending = undefined;
        route();
      }, 50);
    });
  }
}

window.addEventListener('hashchange', route);
route();
connect();
