// The room, live: one server-sent-event stream; its first message is the whole room (a snapshot), the
// others change a machine, a board, the faults or the run's status. A reload or a reconnection starts
// again from a fresh snapshot. Nothing the server sends names a card.
"use strict";
const STATES = ["planned", "loaded", "label checked", "dealing", "recount", "verified", "faulted"];
const $ = (id) => document.getElementById(id);
const shown = [];  // [seq, event time, time shown] of the last events (read by benchmarks/serve.py)
window.dealerShown = shown;
let total = 0, verified = 0, lastFault = 0;

function text(el, value) { el.textContent = value === undefined || value === null ? "" : String(value); }
function cls(state) { return state.replace(/ /g, "-"); }

function setStatus(status, message) {
  const el = $("status"); text(el, status); el.className = "status " + status;
  if (message !== undefined) text($("message"), message);
}
function setCount(v, t, rate) {
  if (t !== undefined) total = t;
  if (v !== undefined) verified = v;
  text($("count"), verified + "/" + total + " boards verified");
  $("bar").max = Math.max(total, 1); $("bar").value = verified;
  if (rate !== undefined) text($("rate"), rate ? "· " + rate + " boards/hour" : "");
}

function machineRow(name) {
  let row = document.querySelector('#machines tr[data-machine="' + CSS.escape(name) + '"]');
  if (!row) {
    row = document.createElement("tr"); row.dataset.machine = name;
    for (let i = 0; i < 9; i++) row.appendChild(document.createElement("td"));
    text(row.cells[0], name);
    $("machines").tBodies[0].appendChild(row);
  }
  return row;
}
function showMachine(m) {
  const row = machineRow(m.name); const job = m.job || {};
  row.className = m.kind;
  const cells = [m.name, m.state, job.session, job.set, job.board, job.copy, job.attempt, m.step, m.rate];
  cells.forEach((v, i) => text(row.cells[i], v));
}

function gridCell(c) {
  const key = "s-" + c.run + "-" + c.session + "-" + c.set;
  let group = document.getElementById(key);
  if (!group) {
    group = document.createElement("div"); group.className = "set"; group.id = key;
    const h = document.createElement("h3"); text(h, c.session + " · set " + c.set); group.appendChild(h);
    $("grid").appendChild(group);
  }
  const id = "r" + c.run + "-" + c.set + "-" + c.board + "-" + c.copy;
  let cell = document.getElementById(id);
  if (!cell) {
    cell = document.createElement("span"); cell.id = id; group.appendChild(cell);
    text(cell, c.copy > 1 ? c.board + "·" + c.copy : c.board);
  }
  cell.className = "cell " + cls(c.state); cell.dataset.state = c.state;
  cell.title = "board " + c.board + " copy " + c.copy + ": " + c.state;
}

function addFault(f) {
  if (f.n <= lastFault) return;  // in the snapshot already
  lastFault = f.n;
  const row = document.createElement("tr"); const job = f.job || {};
  [f.n, f.machine, job.board === undefined ? "" : job.board + (job.copy > 1 ? " copy " + job.copy : ""),
   f.law || "(a machine stop)", f.text, f.action].forEach((v, i) => {
    const td = document.createElement("td"); text(td, v); if (i === 3) td.className = "law"; row.appendChild(td);
  });
  $("faults").tBodies[0].appendChild(row);
}

function clear() {
  $("machines").tBodies[0].replaceChildren(); $("grid").replaceChildren(); $("faults").tBodies[0].replaceChildren();
  text($("summary"), ""); lastFault = 0;
}

function snapshot(s) {
  text($("title"), s.title); setStatus(s.status, s.message); setCount(s.verified, s.total, s.rate);
  clear();
  s.machines.forEach(showMachine); s.grid.forEach(gridCell); s.faults.forEach(addFault);
  text($("summary"), s.summary);
}

function event(e) {
  if (e.verified !== undefined) setCount(e.verified, e.total);
  if (e.machine) {
    const row = machineRow(e.machine); const job = e.job || {};
    row.className = e.kind;
    [e.machine, e.state, job.session, job.set, job.board, job.copy, job.attempt, e.text].forEach(
      (v, i) => text(row.cells[i], v));
    if (e.rate !== undefined) text(row.cells[8], e.rate);
  }
  (e.faults || []).forEach(addFault);
}

function apply(m) {
  switch (m.type) {
    case "snapshot": snapshot(m); break;
    case "event": event(m); break;
    case "grid": m.cells.forEach(gridCell); break;
    case "opened": clear(); text($("title"), m.title); setCount(m.verified, m.total); break;
    case "status": setStatus(m.status, m.message); if (m.title) text($("title"), m.title); break;
    case "ended": setStatus(m.status, m.message); text($("summary"), m.summary); break;
  }
}

function legend() {
  STATES.forEach((s) => {
    const span = document.createElement("span"); span.className = "cell " + cls(s); text(span, s);
    $("legend").appendChild(span);
  });
}

function connect() {
  const source = new EventSource("/events");
  source.onopen = () => { text($("connection"), "live"); $("connection").className = "connection"; };
  source.onerror = () => { text($("connection"), "reconnecting..."); $("connection").className = "connection lost"; };
  source.onmessage = (msg) => {
    const batch = JSON.parse(msg.data);
    batch.forEach(apply);
    const last = batch[batch.length - 1];
    requestAnimationFrame(() => {
      const now = (performance.timeOrigin + performance.now()) / 1000;
      batch.forEach((m) => { if (m.t !== undefined && m.seq !== undefined) shown.push([m.seq, m.t, now]); });
      if (shown.length > 20000) shown.splice(0, shown.length - 20000);
      document.body.dataset.seq = last && last.seq !== undefined ? last.seq : document.body.dataset.seq;
    });
  };
}
legend();
connect();
