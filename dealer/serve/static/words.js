// The words a page's script shows, said in the page's language: the page holds its script's messages, each in that
// language (the JSON element #words); t() says one, filling its {names}. N_() marks a message the server sends as
// a value, said with t() where it is shown. Loaded before the page's own script.
"use strict";
const WORDS = JSON.parse((document.getElementById("words") || {}).textContent || "{}");
function t(message, values) {
  let said = WORDS[message] || message;
  Object.entries(values || {}).forEach(([k, v]) => { said = said.split("{" + k + "}").join(String(v)); });
  return said;
}
function N_(message) { return message; }
