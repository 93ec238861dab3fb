// The keypad of a roll a fight waits for (issue 48; templates/combat/_dice_prompt.html):
// each tap is one die, written into the form's `faces` field; the prompt says how many.
// The panel is swapped after every command, so the keys are found through the document.
// The server checks and computes everything (rules/table_dice.py); this only helps the
// thumb.
(() => {
  "use strict";
  const fill = (template, values) =>
    template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key] ?? ""));

  function render(pad) {
    const field = pad.querySelector("[data-keypad-field]");
    const typed = field.value.split(/[\s,]+/).filter(Boolean);
    const count = Number.parseInt(pad.dataset.count, 10) || 0;
    pad.querySelector("[data-keypad-faces]").replaceChildren(...typed.map((face) => {
      const die = document.createElement("li");
      die.className = "die counted";
      die.textContent = face;
      return die;
    }));
    const need = pad.querySelector("[data-keypad-need]");
    need.textContent = typed.length >= count
      ? fill(need.dataset.all, { count })
      : fill(need.dataset.need, { done: typed.length, count });
  }

  document.addEventListener("click", (event) => {
    const key = event.target.closest("[data-fight-keypad] [data-face], [data-fight-keypad] [data-keypad-undo]");
    if (!key) return;
    const pad = key.closest("[data-fight-keypad]");
    const field = pad.querySelector("[data-keypad-field]");
    const typed = field.value.split(/[\s,]+/).filter(Boolean);
    if (key.dataset.keypadUndo !== undefined) typed.pop();
    else typed.push(key.dataset.face);
    field.value = typed.join(" ");
    render(pad);
  });
  document.addEventListener("input", (event) => {
    const pad = event.target.closest?.("[data-fight-keypad]");
    if (pad && event.target.matches("[data-keypad-field]")) render(pad);
  });
})();
