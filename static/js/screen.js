// The table screen (issue 47; templates/table/screen.html): keeps its newest lines, shows
// what the GM chose (a notice naming this screen reloads it), goes full screen on a tap,
// and says so plainly when the GM ends it.
(() => {
  "use strict";
  const body = document.body;
  const log = document.getElementById("screen-log");
  const mine = body.dataset.screen;
  const keep = Number.parseInt(log?.dataset.keep ?? "6", 10);

  // Read, not used: a line's links (a fight, a journal post) lead to members' pages.
  function unlink(root) {
    for (const link of root.querySelectorAll("a[href]")) link.removeAttribute("href");
  }

  // New lines only: the page's own first lines may hold the notice that chose what it
  // shows now (read again, it reloaded the screen at every event after it).
  function arrived(records) {
    const lines = records.flatMap((record) => [...record.addedNodes])
      .filter((node) => node.nodeType === Node.ELEMENT_NODE);
    if (!lines.length) return; // only the trimming below
    while (log.children.length > keep) log.lastElementChild.remove();
    for (const line of lines) unlink(line);
    // A notice naming this screen, or a handout shown on every screen (issue 47).
    const reload = `[data-screen-notice="${mine}"], [data-screen-handout]`;
    if (lines.some((line) => line.querySelector(reload))) {
      window.location.reload();
      return;
    }
    body.dispatchEvent(new CustomEvent("screen-event")); // the fight asks again (fight mode)
  }
  if (log) {
    new MutationObserver(arrived).observe(log, { childList: true });
    unlink(log);
  }

  const full = document.querySelector("[data-full-screen]");
  if (full) {
    if (!document.fullscreenEnabled) full.hidden = true;
    full.addEventListener("click", () => {
      if (document.fullscreenElement) document.exitFullscreen();
      else document.documentElement.requestFullscreen().catch(() => {});
    });
    document.addEventListener("fullscreenchange", () => {
      full.hidden = Boolean(document.fullscreenElement);
    });
  }

  document.addEventListener("table-closed", (event) => {
    body.dataset.mode = "ended";
    body.className = "screen screen-ended";
    const main = document.getElementById("main");
    const said = document.createElement("p");
    said.className = "screen-ended-text";
    said.dataset.testid = "screen-ended";
    said.setAttribute("role", "status");
    said.textContent = event.detail?.data ?? "";
    main.replaceChildren(said);
  });
})();
