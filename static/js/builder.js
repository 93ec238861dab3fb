// The character builder's live check (issue 7). The form has hx-trigger="builder:preview":
// a stepper click (site.js dispatches an untrusted "input") asks at once, typing asks
// TYPING_DELAY ms after the last key. hx-sync="this:queue last" keeps one check on its way
// and the newest waiting, so an older answer never lands after a newer one.
(() => {
  const TYPING_DELAY = 80; // ms; the issue allows typing a debounce of at most 100 ms
  const form = document.querySelector("form.builder");
  if (!form) return;

  // A level as the server will take it: a whole number within the input's bounds.
  function isValid(input) {
    const text = input.value.trim();
    if (!/^-?\d+$/.test(text)) return false;
    const value = Number(text);
    return (input.min === "" || value >= Number(input.min))
      && (input.max === "" || value <= Number(input.max));
  }

  // The last valid value of each number field: while a field is empty or wrong, the
  // totals are priced from it (sent as fallback-<name>), so they never vanish.
  const numbers = [...form.querySelectorAll('input[type="number"]')];
  const lastValid = new Map();
  for (const input of numbers) if (isValid(input)) lastValid.set(input.name, input.value.trim());

  // The fields changed since the page last showed an answer: the server sends back only
  // their status (cost, next level's price, errors). A field leaves the set when an answer
  // that carried its latest change has been swapped in, so a request dropped from the
  // queue or failed loses nothing. Each change bumps the field's count.
  const pending = new Map();
  let changes = 0;

  let timer = null;
  function preview() {
    window.clearTimeout(timer);
    timer = null;
    form.dispatchEvent(new CustomEvent("builder:preview"));
  }

  form.addEventListener("input", (event) => {
    const input = event.target;
    if (input.type === "number" && isValid(input)) lastValid.set(input.name, input.value.trim());
    if (input.name) pending.set(input.name, ++changes);
    if (!event.isTrusted) {
      preview(); // a stepper click: no debounce
    } else {
      window.clearTimeout(timer);
      timer = window.setTimeout(preview, TYPING_DELAY);
    }
  });

  form.addEventListener("htmx:config:request", (event) => {
    const body = event.detail?.ctx?.request?.body;
    if (!body) return;
    event.detail.ctx.builderSent = new Map(pending);
    body.set("changed", [...pending.keys()].join(","));
    for (const input of numbers) {
      if (!input.disabled && !isValid(input) && lastValid.has(input.name)) {
        body.set(`fallback-${input.name}`, lastValid.get(input.name));
      }
    }
    // After a refused save every problem is shown live and the "Not saved" list is kept.
    if (document.getElementById("not-saved")) body.set("after-save", "1");
  });

  // Each status span says whether its field is wrong (data-invalid); mark the field to
  // match: the row's "invalid" class, aria-invalid, and aria-describedby to the message.
  function syncMarks() {
    for (const status of form.querySelectorAll(".status[data-for]")) {
      const input = document.getElementById(status.dataset.for);
      if (!input) continue;
      const invalid = status.hasAttribute("data-invalid");
      input.closest(".stepper, .field")?.classList.toggle("invalid", invalid);
      if (invalid) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
      const errorId = `${input.id}_error`;
      const ids = (input.getAttribute("aria-describedby") ?? "").split(/\s+/)
        .filter((id) => id && id !== errorId);
      if (invalid) ids.push(errorId);
      if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
      else input.removeAttribute("aria-describedby");
    }
  }
  form.addEventListener("htmx:after:swap", (event) => {
    for (const [name, change] of event.detail?.ctx?.builderSent ?? []) {
      if (pending.get(name) === change) pending.delete(name);
    }
    syncMarks();
  });
  syncMarks();

  // A link in the "Not saved" list takes the focus to its field, not just the view.
  form.addEventListener("click", (event) => {
    const link = event.target.closest("#not-saved a[href^='#']");
    if (!link) return;
    const target = document.getElementById(link.getAttribute("href").slice(1));
    if (!target) return;
    event.preventDefault();
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: "center" });
  });

  // The refused save's page: focus the first wrong field (or the list), as autofocus does
  // where a browser ignores it.
  const first = form.querySelector("[autofocus]");
  if (first && document.activeElement !== first) first.focus();
})();
