// Steppers beside number inputs: change the value by one within the input's bounds and
// announce it as user input, so the live rules check (htmx, hx-trigger="input") runs.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-step]");
  if (!button) return;
  const input = document.getElementById(button.dataset.for);
  if (!input) return;
  const current = Number.parseInt(input.value, 10);
  let next = (Number.isNaN(current) ? 0 : current) + Number(button.dataset.step);
  if (input.min !== "") next = Math.max(next, Number(input.min));
  if (input.max !== "") next = Math.min(next, Number(input.max));
  input.value = String(next);
  input.dispatchEvent(new Event("input", { bubbles: true }));
});

// The live table's connection state, so nobody trusts a page that stopped listening.
function setLiveStatus(state, text) {
  const status = document.getElementById("live-status");
  if (!status || status.dataset.state === "closed") return;
  status.dataset.state = state;
  status.textContent = text ?? (state === "live" ? status.dataset.live : status.dataset.lost);
}
document.addEventListener("htmx:after:sse:connection", () => setLiveStatus("live"));
document.addEventListener("htmx:sse:error", () => setLiveStatus("lost"));
document.addEventListener("htmx:sse:close", () => setLiveStatus("lost"));

// The server ended this page's stream for good (the member was removed, or the table was
// opened in another window): say why; hx-sse:close="table-closed" stops reconnecting.
document.addEventListener("table-closed", (event) => {
  setLiveStatus("closed", event.detail?.data);
});

// The first connection refused (the server is full or restarting, 503 with Retry-After;
// a network error): say so and try again, where htmx would give up.
function retryLiveConnection(log, seconds) {
  setLiveStatus("lost");
  window.setTimeout(() => {
    if (log.isConnected && !log._htmx?.sse) htmx.ajax("GET", log.getAttribute("hx-sse:connect"), { source: log });
  }, seconds * 1000);
}
document.addEventListener("htmx:after:request", (event) => {
  const log = event.target;
  if (!log.hasAttribute?.("hx-sse:connect")) return;
  const response = event.detail?.ctx?.response;
  if (!response || response.status < 400) return;
  event.preventDefault(); // nothing to swap into the log
  const after = Number.parseInt(response.headers?.get("Retry-After") ?? "", 10);
  retryLiveConnection(log, Number.isNaN(after) ? 5 : Math.min(after, 60));
});
document.addEventListener("htmx:error", (event) => {
  const log = event.target;
  if (log.hasAttribute?.("hx-sse:connect") && !log._htmx?.sse) retryLiveConnection(log, 5);
});

// Forms that change something hard to undo ask first: <form data-confirm="Sure?">.
document.addEventListener("submit", (event) => {
  const message = event.target.dataset?.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
}, true);

// Behaviour that used to sit in inline attributes, which the Content Security Policy
// forbids: <button data-print> prints the page; <input data-select-on-click> selects its
// text when clicked (the invitation link, to copy).
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-print]")) window.print();
  const input = event.target.closest("input[data-select-on-click]");
  if (input) input.select();
});

// A new campaign's starting UP and level cap are Aoristos's: hidden while another rule
// system is chosen (the server ignores them then).
function showPointsFields(select) {
  const points = select.value === "aoristos";
  for (const input of select.form?.querySelectorAll("[data-points-only]") ?? []) {
    const field = input.closest(".field") ?? input;
    field.hidden = !points;
  }
}
document.addEventListener("change", (event) => {
  if (event.target.matches?.("select[name=rule_system]")) showPointsFields(event.target);
});
document.addEventListener("DOMContentLoaded", () => {
  const select = document.querySelector("select[name=rule_system]");
  if (select) showPointsFields(select);
});
