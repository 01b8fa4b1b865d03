// dask4j dashboard: polls the JSON API (/api/v1/...) and redraws. No libraries, no build step.
'use strict';

const $ = (id) => document.getElementById(id);
const WINDOW_MS = 20000;        // the task stream shows the last 20 s
const MAX_EVENTS = 20000;       // events kept in the page, whatever the rate
const POLL_MS = 1000;

const state = {
  streamSeq: -1, events: [], streamWorkers: [], clockOffsetMs: 0,
  traffic: null, trafficAt: 0, tick: 0, busy: false, lastOk: 0,
};

async function getJson(path) {
  const r = await fetch(path, { cache: 'no-store' });
  if (!r.ok) throw new Error(path + ' answered ' + r.status);
  return r.json();
}

function fmtNum(n) { return Math.round(n).toLocaleString('en-US'); }
function fmtBytes(n) {
  if (!n) return '0 B';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0)) + ' ' + units[i];
}
function fmtRate(n) { return n > 0 ? fmtBytes(n) + '/s' : '–'; }
// Distinct colours for the first groups seen (in order), then a hash for the rest.
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf',
  '#bcbd22', '#7f7f7f', '#aec7e8', '#ffbb78', '#98df8a', '#ff9896', '#c5b0d5', '#c49c94'];
const colors = new Map();
function color(name) {
  let c = colors.get(name);
  if (!c) {
    if (colors.size < PALETTE.length) c = PALETTE[colors.size];
    else {
      let h = 0;
      for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
      c = 'hsl(' + (h % 360) + ', 60%, 55%)';
    }
    colors.set(name, c);
  }
  return c;
}
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- summary -------------------------------------------------------------------------------------
function renderSummary(s) {
  state.clockOffsetMs = s.time_ms - Date.now();
  $('scheduler-address').textContent = s.scheduler.addresses.join(', ');
  $('stat-workers').textContent = fmtNum(s.workers);
  $('stat-threads').textContent = fmtNum(s.threads);
  $('stat-processing').textContent = fmtNum(s.tasks.processing);
  $('stat-waiting').textContent = fmtNum(s.tasks.waiting);
  $('stat-memory-tasks').textContent = fmtNum(s.tasks.memory);
  $('stat-completed').textContent = fmtNum(s.completed);
  $('stat-erred').textContent = fmtNum(s.erred);
  $('stat-rate').textContent = fmtNum(s.tasks_per_second);
  $('stat-memory').textContent = fmtBytes(s.memory.used) + (s.memory.limit ? ' / ' + fmtBytes(s.memory.limit) : '');
  document.body.dataset.version = s.version;
}

// ---- progress per task group ---------------------------------------------------------------------
function renderGroups(doc) {
  const box = $('progress');
  const groups = doc.groups.filter((g) => g.total > 0);
  if (groups.length === 0) { box.replaceChildren(el('p', 'muted empty', 'no tasks yet')); return; }
  const rows = new Map([...box.querySelectorAll('.group-row')].map((r) => [r.dataset.group, r]));
  const keep = new Set();
  for (const g of groups) {
    let row = rows.get(g.name);
    if (!row) {
      row = el('div', 'group-row');
      row.dataset.group = g.name;
      const name = el('span', 'group-name', g.name);
      name.style.borderLeft = '4px solid ' + color(g.name);
      name.style.paddingLeft = '4px';
      name.title = g.name;
      const bar = el('div', 'bar');
      for (const c of ['seg-done', 'seg-mem', 'seg-proc', 'seg-err']) bar.appendChild(el('span', c));
      row.append(name, bar, el('span', 'group-done'));
      box.appendChild(row);
    }
    keep.add(g.name);
    const total = Math.max(1, g.total);
    const doneReleased = Math.max(0, g.completed - g.memory);
    const segs = row.querySelectorAll('.bar > span');
    const widths = [doneReleased, g.memory, g.processing, g.erred];
    widths.forEach((w, i) => { segs[i].style.width = (100 * w / total) + '%'; });
    row.querySelector('.group-done').textContent = fmtNum(g.completed) + ' / ' + fmtNum(g.total)
      + (g.erred ? ' (' + fmtNum(g.erred) + ' erred)' : '');
    row.title = g.name + ': ' + fmtNum(g.completed) + ' done, ' + fmtNum(g.memory) + ' in memory, '
      + fmtNum(g.processing) + ' processing, ' + fmtNum(g.waiting) + ' waiting, ' + fmtNum(g.erred) + ' erred; '
      + g.compute_s.toFixed(2) + ' s of compute';
    row.dataset.completed = g.completed;
  }
  for (const [name, row] of rows) if (!keep.has(name)) row.remove();
  box.querySelector('.empty')?.remove();
}

// ---- workers -------------------------------------------------------------------------------------
function meter(fraction, label, cls) {
  const wrap = el('span');
  const m = el('span', 'meter' + (cls ? ' ' + cls : '') + (fraction > 0.9 ? ' hot' : ''));
  const fill = el('span');
  fill.style.width = Math.min(100, Math.max(0, fraction * 100)) + '%';
  m.appendChild(fill);
  wrap.append(m, el('span', 'meter-label', label));
  return wrap;
}

function renderWorkers(doc) {
  const body = $('workers').querySelector('tbody');
  const rows = [];
  for (const w of doc.workers) {
    const tr = el('tr', 'worker-row');
    tr.dataset.worker = w.id;
    tr.title = w.id + (w.pid ? ' (pid ' + w.pid + ')' : '');
    const limit = w.memory_limit;
    const memLabel = fmtBytes(w.memory) + (limit ? ' / ' + fmtBytes(limit) : '');
    const memFrac = limit ? w.memory / limit : (w.heap_max ? w.heap_used / w.heap_max : 0);
    const cells = [
      el('td', '', w.name), el('td', 'num', fmtNum(w.nthreads)), el('td', 'num', fmtNum(w.processing)),
      el('td'), el('td', 'num', fmtBytes(w.spilled)), el('td'), el('td', 'num', fmtNum(w.tasks_completed)),
      el('td', 'num', w.last_seen_s.toFixed(1) + ' s'),
    ];
    cells[3].appendChild(meter(memFrac, memLabel));
    cells[5].appendChild(meter(w.cpu / 100 / Math.max(1, w.nthreads), Math.round(w.cpu) + '%', 'cpu'));
    tr.append(...cells);
    rows.push(tr);
  }
  if (rows.length === 0) {
    const tr = el('tr');
    const td = el('td', 'muted', 'no workers');
    td.colSpan = 8;
    tr.appendChild(td);
    rows.push(tr);
  }
  body.replaceChildren(...rows);
}

// ---- comm traffic --------------------------------------------------------------------------------
function renderTraffic(doc) {
  const prev = state.traffic;
  const dt = prev ? (doc.time_ms - state.trafficAt) / 1000 : 0;
  const before = new Map();
  if (prev) for (const p of prev.processes) for (const [t, c] of Object.entries(p.transports)) before.set(p.pid + '/' + p.name + '/' + t, c);
  const box = $('traffic');
  const parts = [];
  for (const p of doc.processes) {
    const div = el('div', 'process');
    div.dataset.process = p.name;
    div.appendChild(el('h3', '', p.name + ' ')).appendChild(el('span', 'muted',
      'pid ' + p.pid + (p.roles.length > 1 ? ' · ' + p.roles.join(', ') : '')));
    const table = el('table', 'transports');
    const head = el('tr');
    for (const h of ['transport', 'bytes in', 'bytes out', 'in/s', 'out/s', 'messages in', 'messages out']) head.appendChild(el('th', h === 'transport' ? '' : 'num', h));
    table.appendChild(head);
    const transports = Object.entries(p.transports);
    for (const [t, c] of transports) {
      const b = before.get(p.pid + '/' + p.name + '/' + t);
      const inRate = b && dt > 0 ? (c.bytes_in - b.bytes_in) / dt : 0;
      const outRate = b && dt > 0 ? (c.bytes_out - b.bytes_out) / dt : 0;
      const tr = el('tr', 'transport-row');
      tr.dataset.transport = t;
      tr.append(el('td', '', t), el('td', 'num', fmtBytes(c.bytes_in)), el('td', 'num', fmtBytes(c.bytes_out)),
        el('td', 'num', fmtRate(inRate)), el('td', 'num', fmtRate(outRate)),
        el('td', 'num', fmtNum(c.messages_in)), el('td', 'num', fmtNum(c.messages_out)));
      table.appendChild(tr);
    }
    if (transports.length === 0) {
      const tr = el('tr'); const td = el('td', 'muted', 'no traffic reported yet'); td.colSpan = 7; tr.appendChild(td); table.appendChild(tr);
    }
    div.appendChild(table);
    for (const [source, values] of Object.entries(p.gauges)) {
      div.appendChild(el('div', 'gauges', source + ': ' + Object.entries(values)
        .map(([k, v]) => k + ' ' + (Number.isInteger(v) ? fmtNum(v) : v.toFixed(3))).join(' · ')));
    }
    if (p.peers.length) {
      const det = el('details');
      det.appendChild(el('summary', '', p.peers.length + ' peers'));
      const pt = el('table', 'peers');
      const ph = el('tr');
      for (const h of ['transport', 'peer', 'identity', 'open', 'bytes in', 'bytes out', 'messages in', 'messages out']) ph.appendChild(el('th', '', h));
      pt.appendChild(ph);
      for (const q of p.peers) {
        const tr = el('tr', 'peer-row');
        tr.append(el('td', '', q.transport), el('td', '', q.peer), el('td', '', q.identity), el('td', 'num', q.open),
          el('td', 'num', fmtBytes(q.bytes_in)), el('td', 'num', fmtBytes(q.bytes_out)),
          el('td', 'num', fmtNum(q.messages_in)), el('td', 'num', fmtNum(q.messages_out)));
        pt.appendChild(tr);
      }
      det.appendChild(pt);
      const wasOpen = box.querySelector('[data-process="' + CSS.escape(p.name) + '"] details')?.open;
      det.open = !!wasOpen;
      div.appendChild(det);
    }
    parts.push(div);
  }
  box.replaceChildren(...parts);
  state.traffic = doc;
  state.trafficAt = doc.time_ms;
}

// ---- task stream ---------------------------------------------------------------------------------
function ingestStream(doc) {
  state.streamWorkers = doc.workers;
  for (const r of doc.events) {
    state.events.push({ seq: r[0], worker: doc.workers[r[1]].id, group: r[2], key: r[3], start: r[4], stop: r[5] });
  }
  if (doc.seq >= 0) state.streamSeq = doc.seq;
  const horizon = Date.now() + state.clockOffsetMs - WINDOW_MS;
  let drop = 0;
  while (drop < state.events.length && (state.events[drop].stop < horizon || state.events.length - drop > MAX_EVENTS)) drop++;
  if (drop) state.events.splice(0, drop);
}

let drawn = [];
function drawStream() {
  const canvas = $('task-stream');
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = 220;
  if (canvas.width !== Math.round(w * dpr)) { canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr); }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const labelW = 110, axisH = 16;
  const now = Date.now() + state.clockOffsetMs, t0 = now - WINDOW_MS;
  const x = (t) => labelW + (w - labelW) * (t - t0) / WINDOW_MS;
  // lanes: one band per worker, split into sub-lanes so overlapping tasks (several threads) stay visible
  const workers = state.streamWorkers;
  const byWorker = new Map(workers.map((wk) => [wk.id, []]));
  for (const e of state.events) if (e.stop >= t0) (byWorker.get(e.worker) || byWorker.set(e.worker, []).get(e.worker)).push(e);
  const bands = [];
  for (const [id, evs] of byWorker) {
    const ends = [];
    const placed = [];
    const maxLanes = Math.max(1, Math.min(16, (workers.find((wk) => wk.id === id)?.nthreads || 1) * 2));
    for (const e of evs) {
      let lane = ends.findIndex((end) => end <= e.start);
      if (lane < 0) lane = ends.length < maxLanes ? ends.length : ends.indexOf(Math.min(...ends));
      ends[lane] = e.stop;
      placed.push([e, lane]);
    }
    const name = workers.find((wk) => wk.id === id)?.name || id;
    bands.push({ name, lanes: Math.max(1, ends.length), placed });
  }
  const totalLanes = bands.reduce((s, b) => s + b.lanes, 0) || 1;
  const laneH = Math.min(24, (h - axisH) / totalLanes);
  drawn = [];
  let y = 0;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (const b of bands) {
    const bandH = b.lanes * laneH;
    ctx.fillStyle = '#f4f4f4';
    ctx.fillRect(labelW, y, w - labelW, bandH - 1);
    ctx.fillStyle = '#555';
    ctx.fillText(b.name, 4, y + bandH / 2, labelW - 8);
    for (const [e, lane] of b.placed) {
      const x0 = Math.max(labelW, x(e.start)), x1 = Math.max(x0 + 1, x(e.stop));
      const ry = y + lane * laneH + 1, rh = Math.max(1, laneH - 2);
      ctx.fillStyle = color(e.group);
      ctx.fillRect(x0, ry, x1 - x0, rh);
      drawn.push([x0, ry, x1 - x0, rh, e]);
    }
    y += bandH;
  }
  // time axis: a tick every 5 s, labelled in seconds ago
  ctx.fillStyle = '#777';
  ctx.strokeStyle = '#ccc';
  for (let s = 0; s <= WINDOW_MS / 1000; s += 5) {
    const tx = x(now - s * 1000);
    ctx.beginPath(); ctx.moveTo(tx, 0); ctx.lineTo(tx, h - axisH); ctx.stroke();
    ctx.fillText(s === 0 ? 'now' : '-' + s + ' s', Math.min(tx - 10, w - 28), h - axisH / 2);
  }
  if (bands.length === 0 || drawn.length === 0) {
    ctx.fillStyle = '#999';
    ctx.fillText('no tasks finished in the last ' + WINDOW_MS / 1000 + ' s', labelW + 10, (h - axisH) / 2);
  }
  canvas.dataset.rects = drawn.length;
  canvas.dataset.total = state.events.length;
}

function onStreamHover(ev) {
  const canvas = $('task-stream');
  const r = canvas.getBoundingClientRect();
  const mx = ev.clientX - r.left, my = ev.clientY - r.top;
  const tip = $('stream-tip');
  const hit = drawn.findLast((d) => mx >= d[0] && mx <= d[0] + d[2] + 1 && my >= d[1] && my <= d[1] + d[3]);
  if (!hit) { tip.hidden = true; return; }
  const e = hit[4];
  tip.textContent = e.key + ' · ' + (e.stop - e.start).toFixed(2) + ' ms';
  tip.style.left = Math.min(mx + 12, r.width - 200) + 'px';
  tip.style.top = (my + 12) + 'px';
  tip.hidden = false;
}

// ---- polling -------------------------------------------------------------------------------------
async function poll() {
  if (state.busy) return;
  state.busy = true;
  try {
    const wantTraffic = state.tick++ % 2 === 0;
    const [summary, groups, workers, stream, traffic] = await Promise.all([
      getJson('/api/v1/summary'), getJson('/api/v1/tasks/groups'), getJson('/api/v1/workers'),
      getJson('/api/v1/task-stream?since=' + state.streamSeq),
      wantTraffic ? getJson('/api/v1/traffic') : Promise.resolve(null),
    ]);
    renderSummary(summary);
    renderGroups(groups);
    renderWorkers(workers);
    ingestStream(stream);
    if (traffic) renderTraffic(traffic);
    state.lastOk = Date.now();
    const status = $('status');
    status.className = 'status';
    status.textContent = 'live · ' + new Date().toLocaleTimeString();
  } catch (e) {
    const status = $('status');
    status.className = 'status stale';
    status.textContent = 'disconnected (' + e.message + '); retrying';
  } finally {
    state.busy = false;
  }
}

$('task-stream').addEventListener('mousemove', onStreamHover);
$('task-stream').addEventListener('mouseleave', () => { $('stream-tip').hidden = true; });
poll();
setInterval(poll, POLL_MS);
setInterval(drawStream, 250);
