// The encounter page: follow the campaign's stream and refresh the encounter's panel when
// one of its records arrives; the vigilance prompt's live chance and its countdown to the
// offered default.

(() => {
  const log = document.getElementById("roll-log");

  function panel() {
    return document.getElementById("encounter-state");
  }

  // A record of this encounter newer than the panel: fetch the panel again (once for a
  // burst of records: the newest request wins).
  let pending = false;
  function refresh() {
    const state = panel();
    if (!state || pending) return;
    pending = true;
    htmx
      .ajax("GET", state.dataset.stateUrl, { target: "#encounter-state", swap: "outerHTML" })
      .finally(() => {
        pending = false;
        const now = panel();
        const newest = newestVersion();
        if (now && newest > Number(now.dataset.version)) refresh();
      });
  }

  function newestVersion() {
    const state = panel();
    if (!state || !log) return 0;
    let newest = 0;
    for (const line of log.querySelectorAll(`li.combat-record[data-encounter="${state.dataset.encounter}"]`)) {
      newest = Math.max(newest, Number(line.dataset.version));
    }
    return newest;
  }

  if (log) {
    new MutationObserver(() => {
      const state = panel();
      if (state && newestVersion() > Number(state.dataset.version)) refresh();
    }).observe(log, { childList: true });
  }

  // A line of this fight links to this page (the table's log links each fight line to its
  // fight): here it stays where it is.
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a.fight-link");
    const state = panel();
    if (link && state && link.closest(`li.combat-record[data-encounter="${state.dataset.encounter}"]`)) {
      event.preventDefault();
    }
  });

  // The vigilance prompt: the attacker's chance for the properties ticked (at most three).
  document.addEventListener("change", (event) => {
    const form = event.target.closest(".vigilance-form");
    if (!form) return;
    const boxes = [...form.querySelectorAll('input[type=checkbox][name="properties"]')];
    // The offer ticks three already, before any change could disable the rest: a fourth
    // tick is taken back.
    if (event.target.checked && boxes.filter((box) => box.checked).length > 3) {
      event.target.checked = false;
    }
    const ticked = boxes.filter((box) => box.checked);
    for (const box of boxes) box.disabled = !box.checked && ticked.length >= 3;
    const output = form.closest(".prompt").querySelector(".vigilance-chance");
    if (!output) return;
    const chances = JSON.parse(output.dataset.chances || "{}");
    const key = ticked.map((box) => box.value).sort().join("+");
    // As the server writes it: one decimal, in the page's language (86,8 % in Swedish).
    const format = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
    const lang = document.documentElement.lang || undefined;
    output.textContent = key in chances ? `${chances[key].toLocaleString(lang, format)} %` : "–";
  });

  // Countdowns: the target's offered default is sent when time runs out; the attacker's
  // "use the offer" button opens then.
  const timers = new WeakSet();
  function startCountdowns() {
    for (const form of document.querySelectorAll(".default-form[data-countdown]")) {
      if (timers.has(form)) continue;
      timers.add(form);
      // The seconds left as the server counts them from the record that opened the prompt
      // (a reload or a new panel goes on where it was).
      let left = Number(form.dataset.countdown);
      // A page opened after the time ran out does not answer for its player at once: the
      // other side may go on, and the player may still answer.
      const ranHere = left > 0;
      const label = form.querySelector(".countdown");
      const tick = () => {
        if (!form.isConnected) return;
        if (label) label.textContent = left > 0 ? `${left} s` : "";
        if (left <= 0) {
          if (form.hasAttribute("data-wait")) {
            form.querySelector("button").disabled = false;
          } else if (ranHere) {
            form.requestSubmit();
          }
          return;
        }
        left -= 1;
        setTimeout(tick, 1000);
      };
      tick();
    }
  }
  startCountdowns();
  document.addEventListener("htmx:after:swap", startCountdowns);
  document.addEventListener("htmx:after:settle", startCountdowns);
})();

// An attack form keeps what was typed and chosen between actions (issue 26): the panel is
// drawn anew after every command and every record from the stream, which emptied T10's
// distance after each shot. The values are kept for this page, by the form's command and
// its hidden fields (the attacker; Phobia's target and weapon), and put back into the new
// panel where the field is still there and the choice still offered (a fallen target is
// not); the attack preview then follows them.
function keepAttackFields() {
  const kept = new Map(); // form key -> Map(field name -> value)
  const skipped = new Set(["csrfmiddlewaretoken", "version"]);

  function keyOf(form) {
    if (!form?.closest("#encounter-state")) return null;
    const hidden = [...form.querySelectorAll("input[type=hidden]")].filter((f) => !skipped.has(f.name));
    if (!hidden.some((f) => f.name === "type" && f.value === "attack")) return null;
    return hidden.map((f) => `${f.name}=${f.value}`).join("&");
  }
  function keepsValue(field) {
    if (field instanceof HTMLSelectElement) return !field.multiple;
    return field instanceof HTMLInputElement && !["hidden", "checkbox", "radio", "submit", "button"].includes(field.type);
  }

  function remember(event) {
    const field = event.target;
    if (!field?.name || !keepsValue(field)) return;
    const key = keyOf(field.form);
    if (!key) return;
    if (!kept.has(key)) kept.set(key, new Map());
    kept.get(key).set(field.name, field.value);
  }
  document.addEventListener("input", remember);
  document.addEventListener("change", remember);

  function restore() {
    for (const form of document.querySelectorAll("#encounter-state form")) {
      const values = kept.get(keyOf(form));
      if (!values) continue;
      let last = null;
      for (const [name, value] of values) {
        const field = form.elements.namedItem(name);
        if (!field || !keepsValue(field) || field.value === value) continue;
        if (field instanceof HTMLSelectElement && ![...field.options].some((o) => o.value === value)) continue;
        field.value = value;
        last = field;
      }
      // As if typed: the preview (hx-trigger "change") asks again with these values.
      if (last) last.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
  document.addEventListener("htmx:after:swap", restore);
}
keepAttackFields();
