// The live table on a phone: the newest line of the log where the thumb is, a send that
// failed says so and offers to try again, the tray folds away, the screen stays awake.

(() => {
  const form = document.getElementById("tray-form");
  const log = document.getElementById("roll-log");
  const latest = document.getElementById("roll-bar-latest");
  const fold = document.getElementById("tray-fold");
  if (!form || !log) return;

  // The roll bar shows a copy of the log's newest line (the log itself is what screen
  // readers hear; the copy is aria-hidden). Lines arrive through the stream.
  function showLatest() {
    if (!latest) return;
    const newest = log.querySelector(":scope > li");
    latest.replaceChildren();
    if (!newest) return;
    const copy = newest.cloneNode(true);
    copy.removeAttribute("id");
    copy.querySelectorAll("[id]").forEach((element) => element.removeAttribute("id"));
    copy.querySelectorAll("a, button").forEach((element) => element.setAttribute("tabindex", "-1"));
    latest.append(copy);
  }
  new MutationObserver(showLatest).observe(log, { childList: true });
  showLatest();

  // The GM's page (issue 48): a roll of the table's own dice, typed in, can be asked for
  // again. The line is the same for everyone; the GM's page adds the button to it.
  const again = log.dataset.askAgain;
  function offerAgain(root) {
    if (!again) return;
    for (const line of root.querySelectorAll?.("li[data-typed-in]:not([data-offered])") ?? []) {
      line.dataset.offered = "1";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "small ask-again";
      button.dataset.testid = "ask-again";
      button.textContent = log.dataset.askAgainLabel;
      button.setAttribute("hx-post", again.replace(/0\/$/, `${line.dataset.seq}/`));
      button.setAttribute("hx-swap", "none");
      line.append(button);
      window.htmx?.process(button);
    }
  }
  offerAgain(log);
  new MutationObserver(() => offerAgain(log)).observe(log, { childList: true });

  // A handout given or taken back (issue 47): the handouts read their list again, so what
  // the GM gives comes to the player's phone; a roll: the evening's luck.
  new MutationObserver((records) => {
    const added = records.flatMap((record) => [...record.addedNodes]);
    if (added.some((node) => node.querySelector?.("[data-handout-notice]"))) {
      document.body.dispatchEvent(new CustomEvent("handout-notice"));
    }
    // A roll, or a fight's end (its rolls count too): this evening's luck reads again
    // (issue 48). Not every record of a fight: that would be a request per page per move.
    const luckChanged = (node) => node.matches?.("li.roll:not(.notice-event):not(.combat-record)") ||
      (node.matches?.("li.combat-record") && node.querySelector(".combat-encounterended"));
    if (added.some(luckChanged)) {
      document.body.dispatchEvent(new CustomEvent("roll-line"));
    }
  }).observe(log, { childList: true });

  // A roll that did not get through: say so beside the tray and in the roll bar, and
  // offer to send it again. The tray keeps its idempotency key until a roll succeeds, so
  // sending again after a lost answer still rolls once.
  const failures = [document.getElementById("send-failed"), document.getElementById("roll-bar-failed")];
  function setFailed(text) {
    for (const element of failures) {
      if (!element) continue;
      element.hidden = !text;
      element.querySelector("span").textContent = text ?? "";
    }
  }
  const isRoll = (event) => event.target === form;
  form.addEventListener("htmx:before:request", (event) => {
    if (isRoll(event)) setFailed(null);
  });
  form.addEventListener("htmx:after:request", (event) => {
    if (!isRoll(event)) return;
    const status = event.detail?.ctx?.response?.status ?? 0;
    // 200: rolled or refused with the reason (swapped in); 400: the tray's own error.
    if (status === 200 || status === 400) return;
    event.preventDefault(); // never swap an error page into the tray
    let text = form.dataset.failedServer;
    if (status === 429 || status === 403) {
      text = `${text} (HTTP ${status})`;
    }
    setFailed(text);
  });
  form.addEventListener("htmx:error", (event) => {
    if (isRoll(event)) setFailed(form.dataset.failedNetwork);
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-retry-roll]")) form.requestSubmit();
  });
  // A roll the server refused (no character chosen, a wrong hand) says why in the tray:
  // open it if it was folded, and bring the reason into view.
  form.addEventListener("htmx:finally:request", (event) => {
    if (!isRoll(event)) return;
    const reason = document.querySelector("#tray-errors .error");
    if (!reason) return;
    if (fold) fold.open = true;
    reason.scrollIntoView({ block: "center" });
  });

  // The tray folds away (remembered on this device); the roll bar's button does it too.
  const foldKey = "aoristos-tray-folded";
  const foldButton = document.querySelector("[data-fold-tray]");
  function foldChanged() {
    if (!foldButton) return;
    foldButton.textContent = fold.open ? foldButton.dataset.hide : foldButton.dataset.show;
    foldButton.setAttribute("aria-expanded", String(fold.open));
  }
  if (fold) {
    try {
      if (localStorage.getItem(foldKey) === "1") fold.open = false;
    } catch {
      // storage refused (private mode): the tray starts open
    }
    fold.addEventListener("toggle", () => {
      try {
        localStorage.setItem(foldKey, fold.open ? "0" : "1");
      } catch {
        // not remembered, still folded
      }
      foldChanged();
    });
    foldButton?.addEventListener("click", () => {
      fold.open = !fold.open;
      if (fold.open) fold.scrollIntoView({ block: "start" });
    });
    foldChanged();
  }

  // The tray's chance sticks to the top while the properties scroll by: a property
  // brought into view (a tap, the keyboard) stops below it, not under it (issue 43).
  if ("ResizeObserver" in window) {
    const sized = new WeakSet();
    const measure = () => {
      const box = document.querySelector(".tray .modes + .odds");
      if (!box) return;
      if (!sized.has(box)) {
        sized.add(box);
        new ResizeObserver(() => {
          document.documentElement.style.setProperty("--tray-odds-height", `${box.offsetHeight}px`);
        }).observe(box);
      }
    };
    measure();
    // The tray's own changes only (its answers swap the chance box), not every log line.
    const tray = document.querySelector(".tray");
    if (tray) new MutationObserver(measure).observe(tray, { childList: true, subtree: true });
  }

  // The screen stays awake by static/js/awake.js (templates/core/_keep_awake.html).
})();
