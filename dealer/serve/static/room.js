// The room, live: one server-sent-event stream; its first message is the whole room (a snapshot), the
// others change a machine, a board, the faults, the run's figures (read from the journal: the whole run,
// across stops and resumes) or the run's status. A reload, a reconnection or a resume starts again from a
// fresh snapshot. Nothing the server sends names a card.
"use strict";
// Every word shown is said through t() (words.js).
const STATES = [N_("planned"), N_("loaded"), N_("label checked"), N_("dealing"), N_("recount"), N_("verified"),
                N_("faulted")];
const STATUSES = [N_("idle"), N_("starting"), N_("dealing"), N_("stopping"), N_("stopped"), N_("finished"), N_("failed")];
const MACHINE_STATES = [N_("connecting"), N_("dealing"), N_("board verified"), N_("waiting for the operator"),
                        N_("fault"), N_("stopped"), N_("working"), N_("not dealing"), N_("done")];
const COLUMNS = 8;
const $ = (id) => document.getElementById(id);
const shown = [];  // [seq, event time, time shown] of the last events (read by benchmarks/serve.py)
window.dealerShown = shown;
let total = 0, verified = 0, lastFault = 0, status = "";

function text(el, value) { el.textContent = value === undefined || value === null ? "" : String(value); }
function cls(state) { return state.replace(/ /g, "-"); }

function duration(seconds) {
  const s = Math.round(seconds || 0);
  if (s < 60) return t("{s} s", { s: s });
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  return h ? t("{h} h {m} min", { h: h, m: m }) : t("{m} min {s} s", { m: m, s: s % 60 });
}

function setStatus(st, message) {
  const el = $("status"); status = st; text(el, STATUSES.includes(st) ? t(st) : st); el.className = "status " + st;
  if (message !== undefined) text($("message"), message);
  const dealing = st === "dealing" || st === "starting";
  $("stop").disabled = !dealing;
  if (dealing || st === "stopping") { $("resume").disabled = true; $("next").hidden = true; }
}
function setNext(resume) {
  $("resume").disabled = !resume; $("next").hidden = !resume;
  text($("command"), resume ? resume.command : "");
}
function setCount(v, all) {
  if (all !== undefined) total = all;
  if (v !== undefined) verified = v;
  text($("count"), t("{verified}/{total} boards verified", { verified: verified, total: total }));
  $("bar").max = Math.max(total, 1); $("bar").value = verified;
}

// Where a board is, in words: "set A, board 7, copy 2" (the session first in a congress).
function where(job) {
  if (!job || job.board === undefined || job.board === null) return "";
  const parts = [];
  if (job.session) parts.push(job.session);
  parts.push(job.set ? t("set {set}, board {board}", { set: job.set, board: job.board })
                     : t("board {board}", { board: job.board }));
  if (job.copy > 1) parts.push(t("copy {copy}", { copy: job.copy }));
  if (job.attempt > 1) parts.push(t("attempt {attempt}", { attempt: job.attempt }));
  return parts.join(", ");
}

function labelled(row, table) {
  const heads = table.tHead.rows[0].cells;
  Array.from(row.cells).forEach((td, i) => { td.dataset.label = heads[i] ? heads[i].textContent : ""; });
}

function machineRow(name) {
  let row = document.querySelector('#machines tr[data-machine="' + CSS.escape(name) + '"]');
  if (!row) {
    row = document.createElement("tr"); row.dataset.machine = name;
    for (let i = 0; i < COLUMNS; i++) row.appendChild(document.createElement("td"));
    text(row.cells[0], name);
    labelled(row, $("machines"));
    $("machines").tBodies[0].appendChild(row);
  }
  return row;
}
function showMachine(m) {
  const row = machineRow(m.name);
  row.className = m.kind;
  [m.name, t(m.state), where(m.job), m.step].forEach((v, i) => text(row.cells[i], v));
}
function showFigures(f) {
  if (!f) return;
  setCount(f.verified, f.total);
  text($("rate"), f.dealing > 0 ? "· " + t("dealing for {time}", { time: duration(f.dealing) })
                                  + (f.rate ? ", " + t("{rate} boards/hour", { rate: f.rate }) : "") : "");
  f.machines.forEach((m) => {
    const row = machineRow(m.name);
    if (!row.cells[1].textContent) text(row.cells[1], t("not dealing"));
    [m.verified, m.faults, duration(m.busy), m.rate].forEach((v, i) => text(row.cells[4 + i], v));
  });
}

function gridCell(c) {
  const key = "s-" + c.run + "-" + c.set + "-" + c.copy;
  let group = document.getElementById(key);
  if (!group) {
    group = document.createElement("div"); group.className = "set"; group.id = key;
    group.appendChild(document.createElement("h3"));
    $("grid").appendChild(group);
  }
  text(group.firstChild, c.session + " · " + t("set {set}", { set: c.set })  // (a record's run may change computer)
                         + (c.copy > 1 ? " · " + t("copy {copy}", { copy: c.copy }) : ""));
  const id = "r" + c.run + "-" + c.set + "-" + c.board + "-" + c.copy;
  let cell = document.getElementById(id);
  if (!cell) {
    cell = document.createElement("span"); cell.id = id; group.appendChild(cell);
    text(cell, c.board);
  }
  cell.className = "cell " + cls(c.state); cell.dataset.state = c.state;
  cell.title = t("board {board}", { board: c.board }) + (c.copy > 1 ? ", " + t("copy {copy}", { copy: c.copy }) : "")
               + ": " + t(c.state);
}

function addFault(f) {
  if (f.n <= lastFault) return;  // in the snapshot already
  lastFault = f.n;
  const row = document.createElement("tr"); const job = f.job || {};
  const board = job.board === undefined ? "" : t("board {board}", { board: job.board })
                + (job.copy > 1 ? ", " + t("copy {copy}", { copy: job.copy }) : "");
  [f.n, f.machine, board, f.law || t("(a machine stop)"), f.text, f.action].forEach((v, i) => {
    const td = document.createElement("td"); text(td, v); if (i === 3) td.className = "law";
    if (i === 0) td.dataset.fault = t("fault");  // its heading on a phone (style.css)
    row.appendChild(td);
  });
  labelled(row, $("faults"));
  $("faults").tBodies[0].appendChild(row);
}

function clear() {
  $("machines").tBodies[0].replaceChildren(); $("grid").replaceChildren(); $("faults").tBodies[0].replaceChildren();
  text($("summary"), ""); text($("rate"), ""); lastFault = 0;
}

function snapshot(s) {
  document.querySelector("#head .actions").hidden = s.controls === false;  // a record's runs are dealt elsewhere
  text($("title"), s.title); setStatus(s.status, s.message); setCount(s.verified, s.total);
  clear();
  s.machines.forEach(showMachine); showFigures(s.figures); s.grid.forEach(gridCell); s.faults.forEach(addFault);
  setNext(s.resume);
  text($("summary"), s.summary);
}

function event(e) {  // a machine's step: its figures come with the grid's reading, not with each event
  if (e.machine) {
    const row = machineRow(e.machine);
    row.className = e.kind;
    [e.machine, t(e.state), where(e.job), e.text].forEach((v, i) => text(row.cells[i], v));
  }
  (e.faults || []).forEach(addFault);
}

function apply(m) {
  switch (m.type) {
    case "snapshot": snapshot(m); break;
    case "event": event(m); break;
    case "grid": m.cells.forEach(gridCell); showFigures(m.figures); break;  // one reading, one frame
    case "opened": text($("title"), m.title); setCount(m.verified, m.total); break;
    case "status": setStatus(m.status, m.message); if (m.title) text($("title"), m.title); break;
    case "ended":
      setStatus(m.status, m.message); text($("summary"), m.summary); showFigures(m.figures); setNext(m.resume);
      break;
  }
}

function legend() {
  STATES.forEach((s) => {
    const span = document.createElement("span"); span.className = "cell " + cls(s); text(span, t(s));
    $("legend").appendChild(span);
  });
}

async function post(url) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  return response.json();
}

$("stop").addEventListener("click", async () => {
  $("stop").disabled = true;
  const result = await post("/api/stop");
  text($("said"), result.ok ? "" : (result.problems || []).join("; ")); $("said").className = "problem";
  if (!result.ok) $("stop").disabled = status !== "dealing";
});
$("resume").addEventListener("click", async () => {
  $("resume").disabled = true;
  const result = await post("/api/resume");
  text($("said"), result.ok ? "" : t("Cannot resume: {problems}", { problems: (result.problems || []).join("; ") }));
  $("said").className = "problem";
  if (!result.ok) $("resume").disabled = false;
});

function connect() {
  const source = new EventSource("/events");
  source.onopen = () => { text($("connection"), t("live")); $("connection").className = "connection"; };
  source.onerror = () => { text($("connection"), t("reconnecting...")); $("connection").className = "connection lost"; };
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
setCount(0, 0);
connect();
