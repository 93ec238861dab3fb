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
function setLiveStatus(state) {
  const status = document.getElementById("live-status");
  if (!status) return;
  status.dataset.state = state;
  status.textContent = state === "live" ? status.dataset.live : status.dataset.lost;
}
document.addEventListener("htmx:after:sse:connection", () => setLiveStatus("live"));
document.addEventListener("htmx:sse:error", () => setLiveStatus("lost"));
document.addEventListener("htmx:sse:close", () => setLiveStatus("lost"));

// Forms that change something hard to undo ask first: <form data-confirm="Sure?">.
document.addEventListener("submit", (event) => {
  const message = event.target.dataset?.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
}, true);
