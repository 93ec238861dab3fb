// The keypad for the table's own dice (issue 48; templates/table/_keypad.html): each tap
// is one die, in the order rolled, written into the tray's `faces` field; the odds box
// says how many dice the hand takes, and a tray answer that asks for more (Phobia's
// sixes rolled again) raises the count and keeps what was typed. The server checks and
// computes everything (rules/entered.py); this only helps the thumb.
(() => {
  "use strict";
  // The tray's keypad, or the sheet's roller's (table/_sheet_roller.html).
  const pad = document.querySelector("[data-keypad]");
  const form = pad?.closest("form");
  if (!pad || !form) return;
  const field = pad.querySelector("[data-keypad-field]");
  const shown = pad.querySelector("[data-keypad-faces]");
  const need = pad.querySelector("[data-keypad-need]");
  const own = pad.querySelector("[data-own-dice]");
  const body = pad.querySelector("[data-keypad-body]");
  let extra = 0; // dice a roll asked for beyond the hand's (its sixes)

  const faces = () => field.value.split(/[\s,]+/).filter(Boolean);
  const handCount = () => {
    const found = document.querySelector("#odds [data-keypad-dice]")?.dataset.keypadDice;
    return found ? Number.parseInt(found, 10) : 0;
  };
  const fill = (template, values) =>
    template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key] ?? ""));

  // The keys the hand's dice have: 1-6, or 1-10 for T10's (and any hand of ten-sided dice).
  const sides = () => {
    const found = document.querySelector("#odds [data-keypad-sides]")?.dataset.keypadSides;
    return found ? Number.parseInt(found, 10) : 6;
  };

  function render() {
    const typed = faces();
    const most = sides();
    for (const key of pad.querySelectorAll("[data-face]")) {
      key.hidden = Number.parseInt(key.dataset.face, 10) > most;
    }
    const count = handCount() + extra;
    shown.replaceChildren(...typed.map((face) => {
      const die = document.createElement("li");
      die.className = "die counted";
      die.textContent = face;
      return die;
    }));
    if (!count) need.textContent = need.dataset.choose;
    else if (typed.length >= count) need.textContent = fill(need.dataset.all, { count });
    else if (extra && typed.length >= handCount()) {
      need.textContent = fill(need.dataset.more, { more: count - typed.length });
    } else need.textContent = fill(need.dataset.need, { done: typed.length, count });
    pad.dataset.count = String(count);
  }

  pad.addEventListener("click", (event) => {
    const key = event.target.closest("[data-face], [data-keypad-undo]");
    if (!key) return;
    const typed = faces();
    if (key.dataset.keypadUndo !== undefined) typed.pop();
    else typed.push(key.dataset.face);
    field.value = typed.join(" ");
    render();
  });
  // Typed by hand: not a change of what is rolled (the odds box asks again on those).
  for (const type of ["input", "change"]) {
    field.addEventListener(type, (event) => {
      event.stopPropagation();
      render();
    });
  }
  own.addEventListener("change", () => {
    body.hidden = !own.checked;
    field.disabled = !own.checked; // unticked: no faces go with the roll, the server rolls
    render();
  });

  // The tray's answer: a roll done clears the dice; one that takes more asks for them.
  document.addEventListener("htmx:after:swap", () => {
    const answer = document.getElementById("tray-errors") ??
      document.getElementById("sheet-roll-result");
    if (!answer) return;
    if (answer.dataset.rolled) {
      field.value = "";
      extra = 0;
    } else if (answer.dataset.more) {
      extra = faces().length + Number.parseInt(answer.dataset.more, 10) - handCount();
    }
    render();
  });
  // Another test or hand chosen: its dice from the start.
  const odds = document.getElementById("odds");
  if (odds) new MutationObserver(() => { extra = 0; render(); }).observe(odds, { childList: true });
  render();
})();
