// The sheet's roller (templates/table/_sheet_roller.html): favourites that load a test,
// and a roll that did not get through says so and offers to try again.

// A favourite loads its test into the roller; the chance follows (a change on the form).
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-favourite]");
  const form = document.getElementById("roll-form");
  if (!link || !form || event.button !== 0 || event.metaKey || event.ctrlKey) return;
  event.preventDefault();
  const chosen = new Set(link.dataset.properties.split(" ").filter(Boolean));
  for (const box of form.querySelectorAll('input[name="properties"]')) {
    box.checked = chosen.has(box.value);
    if (box.checked) box.closest("details")?.setAttribute("open", "");
  }
  for (const name of ["free", "forced", "threshold"]) {
    const input = form.querySelector(`input[name="${name}"]`);
    if (input) input.value = link.dataset[name] ?? "";
  }
  hideRollFailure();
  form.dispatchEvent(new Event("change", { bubbles: true }));
});

function rollFailure() {
  return document.getElementById("roll-failed");
}
function hideRollFailure() {
  const failed = rollFailure();
  if (failed) failed.hidden = true;
}

// A roll that got no answer (the network is down) or a server error: nothing is swapped,
// the form keeps its idempotency key, and "Try again" sends the same roll again, which
// the server rolls at most once. A 400 is an answer: it is shown where results are.
function isRollForm(element) {
  return element?.id === "roll-form";
}
document.addEventListener("htmx:before:request", (event) => {
  if (isRollForm(event.target)) hideRollFailure();
});
document.addEventListener("htmx:after:request", (event) => {
  if (!isRollForm(event.target)) return;
  const status = event.detail?.ctx?.response?.status ?? 0;
  if (status < 400 || status === 400) return;
  event.preventDefault(); // an error page is not a result
  showRollFailure();
});
document.addEventListener("htmx:error", (event) => {
  if (isRollForm(event.target)) showRollFailure();
});
function showRollFailure() {
  const failed = rollFailure();
  if (!failed) return;
  failed.hidden = false;
  failed.querySelector("button")?.focus();
}
document.addEventListener("click", (event) => {
  if (!event.target.closest("button[data-retry-roll]")) return;
  const form = document.getElementById("roll-form");
  hideRollFailure();
  form?.requestSubmit(form.querySelector('button[type="submit"]'));
});

// A favourite saved: the name field is emptied for the next one.
document.addEventListener("htmx:after:request", (event) => {
  const form = event.target;
  if (form?.id !== "favourite-form") return;
  if (event.detail?.ctx?.response?.status === 200) form.reset();
});
