// The Start page: check what would be dealt (nothing starts), then start, stop or resume. A run names a
// file of the console's work folder and machines by the ids the console offers: never a path or a URL.
"use strict";
const $ = (id) => document.getElementById(id);
// Every word shown is said through t() (words.js).

function request() {
  return {
    source: $("source").value,
    machines: Array.from(document.querySelectorAll('input[name="machine"]:checked')).map((i) => i.value),
    copies: parseInt($("copies").value || "1", 10),
    set: $("set").value.trim() || "A",
    resume: $("resume").checked,
    replay: $("replay").checked,
    teaching: $("teaching").checked,
  };
}

function show(result) {
  const box = $("validation"); box.replaceChildren();
  const head = document.createElement("p");
  head.className = result.ok ? "ok" : "";
  head.id = result.ok ? "valid" : "invalid";
  head.textContent = result.ok ? t("Ready to deal.") : t("Cannot start:");
  box.appendChild(head);
  const lines = document.createElement("ul");
  (result.lines || []).forEach((l) => { const li = document.createElement("li"); li.textContent = l; lines.appendChild(li); });
  box.appendChild(lines);
  const problems = document.createElement("ul"); problems.className = "problems";
  (result.problems || []).forEach((p) => { const li = document.createElement("li"); li.textContent = p; problems.appendChild(li); });
  box.appendChild(problems);
  $("go").disabled = !result.ok;
}

async function post(url, body) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" },
                                      body: JSON.stringify(body || {}) });
  return response.json();
}

async function upload() {
  const file = $("upload").files[0];
  if (!file) return;
  const response = await fetch("/api/upload?name=" + encodeURIComponent(file.name), { method: "POST", body: file });
  const result = await response.json();
  if (!result.source) { show({ ok: false, problems: [result.error] }); return; }
  const select = $("source");
  if (!Array.from(select.options).some((o) => o.value === result.source)) {
    const option = document.createElement("option"); option.value = result.source; option.textContent = result.source;
    select.appendChild(option);
  }
  select.value = result.source;
}

$("start").addEventListener("submit", (e) => e.preventDefault());

$("upload").addEventListener("change", async () => { await upload(); show(await post("/api/check", request())); });
$("check").addEventListener("click", async () => show(await post("/api/check", request())));
$("go").addEventListener("click", async () => {
  const result = await post("/api/start", request());
  if (result.ok) window.location = "/"; else show(result);
});
function said(text, problem) {
  $("said").textContent = text; $("said").className = problem ? "problem" : "";
}
$("stop").addEventListener("click", async () => {
  const result = await post("/api/stop");
  said(result.ok ? t("Stopping: each machine finishes its board, then the run stops (the Room shows it).")
                 : (result.problems || []).join("; "), !result.ok);
});
$("resume-last").addEventListener("click", async () => {
  const result = await post("/api/resume");
  if (result.ok) window.location = "/";
  else said(t("Cannot resume: {problems}", { problems: (result.problems || []).join("; ") }), true);
});
