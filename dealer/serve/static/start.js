// The Start page: check what would be dealt (nothing starts), then start, stop or resume.
"use strict";
const $ = (id) => document.getElementById(id);

function request() {
  return {
    source: $("source").value.trim(),
    ports: Array.from(document.querySelectorAll('input[name="port"]:checked')).map((i) => i.value),
    copies: parseInt($("copies").value || "1", 10),
    set: $("set").value.trim() || "A",
    resume: $("resume").checked,
  };
}

function show(result) {
  const box = $("validation"); box.replaceChildren();
  const head = document.createElement("p");
  head.className = result.ok ? "ok" : "";
  head.id = result.ok ? "valid" : "invalid";
  head.textContent = result.ok ? "Ready to deal." : "Cannot start:";
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
  if (result.path) $("source").value = result.path; else show({ ok: false, problems: [result.error] });
}

$("upload").addEventListener("change", async () => { await upload(); show(await post("/api/check", request())); });
$("check").addEventListener("click", async () => show(await post("/api/check", request())));
$("go").addEventListener("click", async () => {
  const result = await post("/api/start", request());
  if (result.ok) window.location = "/"; else show(result);
});
$("stop").addEventListener("click", async () => show(await post("/api/stop")));
$("resume-last").addEventListener("click", async () => {
  const result = await post("/api/resume");
  if (result.ok) window.location = "/"; else show(result);
});
