// A prompt finds its player (issue 26): on every page of a campaign, the prompts that wait
// for this user's answer in its fights show in a banner at the top with the seconds left
// before the offered default may be taken, and link to their fight. On the encounter page
// the fight's own prompt comes into view. A new prompt changes the tab's title, vibrates
// the phone where the browser allows it, and is read out by screen readers.
//
// What waits comes from the server (combat:prompts, only this user's). A page with the live
// log asks when a combat record of another fight arrives (the encounter page follows its
// own fight's panel); any other page asks every few seconds while it is seen. The answer
// also lists the fights that are on, for the pages that link to them.

(() => {
  const banner = document.getElementById("prompt-banner");
  if (!banner) return;
  const remote = banner.querySelector(".prompt-banner-list");
  const here = banner.querySelector(".prompt-banner-here");
  const announcer = document.getElementById("prompt-announce");
  const log = document.getElementById("roll-log");
  const POLL_MS = 4000;
  const baseTitle = document.title;
  const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

  const panel = () => document.getElementById("encounter-state");
  const thisFight = () => panel()?.dataset.encounter ?? null;

  let localItems = []; // this page's own fight's prompts (the encounter page)
  let remoteItems = []; // the server's list: prompts in the campaign's other fights

  // --- Alerts: what a new prompt does -------------------------------------------------------

  // A browser lets a page vibrate only once it has had a tap (a "user activation"); asked
  // before, it refuses and warns (issue 43), so the page waits for one.
  let tapped = navigator.userActivation?.hasBeenActive ?? false;
  const onTap = () => {
    tapped = true;
  };
  document.addEventListener("pointerdown", onTap, { once: true, capture: true });
  document.addEventListener("keydown", onTap, { once: true, capture: true });

  let seen = new Set(); // the prompts (keys) waiting at the last look
  function alertNew(items) {
    const keys = new Set(items.map((item) => item.key));
    const fresh = items.filter((item) => !seen.has(item.key));
    seen = keys;
    if (fresh.length === 0) return;
    if (tapped || navigator.userActivation?.hasBeenActive) {
      try {
        navigator.vibrate?.([200, 100, 200]);
      } catch {
        // not allowed here: nothing vibrates
      }
    }
    if (announcer) {
      // Emptied first, so the same words are read again for a second prompt.
      announcer.textContent = "";
      window.setTimeout(() => {
        announcer.textContent = fresh.map((item) => item.title).join(". ");
      }, 50);
    }
  }

  function showTitle(items) {
    document.title = items.length ? `⚔ ${items[0].title} · ${baseTitle}` : baseTitle;
  }

  // --- The server's list: prompts in the campaign's fights ----------------------------------

  let tag = null; // the server's tag of the answer shown: unchanged answers are not sent
  let stopped = false;
  let inFlight = false;
  let again = false;

  async function look() {
    if (stopped) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    banner.dataset.looking = "1"; // for tests and tools: the banner may still change
    try {
      const headers = { Accept: "text/html" };
      if (tag) headers["If-None-Match"] = tag;
      const response = await fetch(banner.dataset.url, {
        credentials: "same-origin",
        headers,
        cache: "no-store",
      });
      if (response.redirected || (response.status >= 400 && response.status < 500)) {
        stopped = true; // logged out or no longer a member: nothing to ask for
        return;
      }
      if (response.status === 304 || !response.ok) return; // 304: nothing has changed
      tag = response.headers.get("ETag");
      remote.innerHTML = await response.text();
      takeRunning();
      const fight = thisFight();
      remoteItems = [];
      for (const link of remote.querySelectorAll("a[data-key]")) {
        if (fight && link.dataset.encounter === fight) {
          // The encounter page shows its own fight's prompt in place (below), and your
          // turn in it from its own panel (turnHere).
          link.closest("li").remove();
          continue;
        }
        const left = Number(link.dataset.left);
        remoteItems.push({
          key: link.dataset.key,
          title: link.dataset.title,
          label: link.querySelector(".prompt-banner-left"),
          deadline: link.dataset.left === undefined ? null : Date.now() + left * 1000,
        });
      }
      update();
    } catch {
      // offline for a moment: the next look tries again
    } finally {
      inFlight = false;
      delete banner.dataset.looking;
      if (again) {
        again = false;
        look();
      }
    }
  }

  // The fights that are on come with the prompts: a page with a slot for them (table,
  // campaign) shows a fight started while it is open, and drops one that ended.
  const runningSlot = document.querySelector("[data-running-slot]");
  function takeRunning() {
    const fresh = remote.querySelector("template[data-running]");
    if (!fresh) return;
    fresh.remove();
    if (runningSlot && runningSlot.innerHTML.trim() !== fresh.innerHTML.trim()) {
      runningSlot.replaceChildren(fresh.content.cloneNode(true));
    }
  }

  // Countdowns in the banner: the seconds until the offered default may be taken.
  window.setInterval(() => {
    for (const item of remoteItems) {
      if (!item.label?.isConnected || item.deadline === null) continue;
      const left = Math.max(0, Math.ceil((item.deadline - Date.now()) / 1000));
      item.label.textContent = `${left} s`;
    }
    if (localItems.length) renderHere();
  }, 1000);

  if (log) {
    // A combat record of another fight may open or close a prompt there.
    new MutationObserver((changes) => {
      const fight = thisFight();
      for (const change of changes) {
        for (const node of change.addedNodes) {
          if (node.matches?.("li.combat-record") && node.dataset.encounter !== fight) {
            look();
            return;
          }
        }
      }
    }).observe(log, { childList: true });
  } else {
    window.setInterval(() => {
      if (document.visibilityState === "visible") look();
    }, POLL_MS);
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") look();
  });
  window.addEventListener("online", look);
  look();

  // --- This page's own fight: its prompt comes into view ------------------------------------

  // Your turn in this page's own fight (issue 43): the map's data in the panel says
  // whether this viewer acts now; while the map, where the turn is played, is out of
  // sight, the banner says it and its link brings the map back. A turn has no countdown
  // (no default is taken for it). Other pages hear of it from the server's list.
  function turnHere() {
    const data = JSON.parse(document.getElementById("map-data")?.textContent || "null");
    const map = document.getElementById("battle-map");
    if (!data?.acting || data.is_gm || !map || mapInSight) return null;
    const who = data.combatants.find((c) => c.id === data.active)?.name ?? "";
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = "#battle-map";
    link.className = "prompt-banner-link";
    link.dataset.testid = "prompt-banner-turn";
    const strong = document.createElement("strong");
    strong.textContent = `⚔ ${who}: ${banner.dataset.turn}`;
    link.append(strong);
    link.addEventListener("click", (event) => {
      event.preventDefault();
      map.scrollIntoView({ block: "start", behavior: reducedMotion ? "auto" : "smooth" });
    });
    li.append(link);
    return li;
  }

  let mapInSight = false; // the battle map, where a turn is played, is on the screen
  const battleMap = document.getElementById("battle-map");
  if (battleMap && "IntersectionObserver" in window) {
    new IntersectionObserver((entries) => {
      mapInSight = entries[entries.length - 1].isIntersecting;
      renderHere();
    }, { threshold: 0.2 }).observe(battleMap);
  }

  const visible = new WeakMap(); // prompt section -> in the viewport
  const watcher =
    "IntersectionObserver" in window
      ? new IntersectionObserver(
          (entries) => {
            for (const entry of entries) visible.set(entry.target, entry.isIntersecting);
            renderHere();
          },
          { threshold: 0.25 },
        )
      : null;

  function typing() {
    const active = document.activeElement;
    return Boolean(
      active?.matches?.("input:not([type=checkbox]):not([type=radio]):not([type=hidden]), textarea, select") &&
        !active.closest(".prompt.mine"),
    );
  }

  function bringIntoView(section) {
    // Its top, heading first (who attacks with what, the countdown): centred, a tall
    // prompt left its heading above the screen (issue 43). prompt.css keeps it below the
    // banner (scroll-margin-top).
    section.scrollIntoView({ block: "start", behavior: reducedMotion ? "auto" : "smooth" });
    const heading = section.querySelector("h2, h3");
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  }

  function scanHere() {
    const state = panel();
    if (!state) return;
    watcher?.disconnect();
    // Only a prompt that calls this viewer (its player, or the GM for an NPC's).
    const sections = [...state.querySelectorAll(".prompt.mine.calls")];
    localItems = sections.map((section, index) => {
      if (!section.id) section.id = index === 0 ? "prompt" : `prompt-${index + 1}`;
      watcher?.observe(section);
      const heading = section.querySelector("h2, h3");
      const text = (heading?.textContent ?? "").trim().replace(/\s+/g, " ");
      return {
        key: `${state.dataset.encounter}-${section.dataset.testid ?? section.className}-${text}`,
        title: text ? `${text} — ${banner.dataset.answer}` : banner.dataset.answer,
        section,
      };
    });
    const before = seen;
    update();
    // A new prompt of this fight comes into view, unless the user is typing elsewhere
    // (then the banner at the top says it and jumps to it).
    const fresh = localItems.filter((item) => !before.has(item.key));
    if (fresh.length && !typing()) bringIntoView(fresh[0].section);
  }

  function renderHere() {
    here.replaceChildren();
    for (const item of localItems) {
      if (!item.section.isConnected || visible.get(item.section)) continue;
      const li = document.createElement("li");
      const link = document.createElement("a");
      link.href = `#${item.section.id}`;
      link.className = "prompt-banner-link";
      link.dataset.testid = "prompt-banner-here";
      const strong = document.createElement("strong");
      strong.textContent = `⚔ ${item.title}`;
      link.append(strong);
      const countdown = item.section.querySelector(".default-form:not([data-wait]) .countdown");
      if (countdown?.textContent) {
        const left = document.createElement("span");
        left.className = "prompt-banner-left";
        left.setAttribute("role", "timer");
        left.textContent = countdown.textContent;
        link.append(" ", left);
      }
      link.addEventListener("click", (event) => {
        event.preventDefault();
        bringIntoView(item.section);
      });
      li.append(link);
      here.append(li);
    }
    const turn = turnHere();
    if (turn) here.append(turn);
    banner.hidden = !here.children.length && !remote.children.length;
    keepBelowBanner();
  }

  // What else sticks to the top (the table's pinned chance) sits below the banner.
  function keepBelowBanner() {
    const height = banner.hidden ? 0 : banner.offsetHeight;
    document.documentElement.style.setProperty("--prompt-banner-height", `${height}px`);
  }
  if ("ResizeObserver" in window) new ResizeObserver(keepBelowBanner).observe(banner);

  function update() {
    const items = [...localItems, ...remoteItems];
    alertNew(items);
    showTitle(items);
    renderHere();
  }

  // The panel is swapped after every record of its fight (static/js/combat.js) and after
  // every command sent from it: look again at each new panel.
  const parent = panel()?.parentElement;
  if (parent) {
    new MutationObserver(() => {
      const state = panel();
      if (state && !state.dataset.scanned) {
        state.dataset.scanned = "1";
        scanHere();
      }
    }).observe(parent, { childList: true, subtree: true });
    panel().dataset.scanned = "1";
    scanHere();
  }
})();
