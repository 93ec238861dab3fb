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
const liveRetries = new WeakMap(); // log -> { timer, failures } while its first connection waits
function connectLive(log) {
  clearTimeout(liveRetries.get(log)?.timer);
  if (log.isConnected && !log._htmx?.sse) htmx.ajax("GET", log.getAttribute("hx-sse:connect"), { source: log });
}
function retryLiveConnection(log, seconds) {
  setLiveStatus("lost");
  const retry = liveRetries.get(log) ?? { failures: 0 };
  clearTimeout(retry.timer);
  retry.failures += 1;
  retry.timer = window.setTimeout(() => connectLive(log), seconds * 1000);
  liveRetries.set(log, retry);
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
  if (!log.hasAttribute?.("hx-sse:connect") || log._htmx?.sse) return;
  // A network error: the first retry soon (1 s), then 2 s, then every 4 s.
  const failures = liveRetries.get(log)?.failures ?? 0;
  retryLiveConnection(log, Math.min(2 ** failures, 4));
});

// Back at once (issue 26): htmx retries a broken stream after growing waits (1 s, 2 s,
// 4 s, ... up to a minute), so a phone that was offline for a while heard nothing for
// many seconds after its network came back. A stream is now retried at least every 4 s,
// and at once when the browser comes back online or the page is shown again; it catches
// up from the last event it saw (Last-Event-ID), as every reconnection does.
function hurryLiveStreams() {
  const hurried = new WeakMap(); // log -> until when its next reconnection skips the wait
  if (window.htmx) htmx.config.sse = { ...htmx.config.sse, reconnectMaxDelay: 4000 };

  function reconnectNow(fresh) {
    for (const log of document.querySelectorAll("[hx-sse\\:connect]")) {
      const connection = log._htmx?.sse;
      if (!connection) {
        // The first connection failed and its retry is waiting: try now.
        if (liveRetries.get(log)?.timer) connectLive(log);
        continue;
      }
      hurried.set(log, performance.now() + 5000);
      if (connection.delayCanceller) {
        connection.delayCanceller(); // waiting out a backoff: go now
      } else if (fresh && connection.reader) {
        // A stream opened before the network went away may be dead without knowing it:
        // a fresh one (the wait before it skipped below).
        connection.reader.cancel();
      }
    }
  }
  // htmx announces each reconnection just before it waits: a hurried one waits no more.
  document.addEventListener("htmx:before:sse:connection", (event) => {
    const log = event.target;
    const until = hurried.get(log);
    if (until === undefined) return;
    hurried.delete(log);
    const connection = event.detail?.connection;
    if (connection && performance.now() < until) queueMicrotask(() => connection.delayCanceller?.());
  });
  document.addEventListener("htmx:after:sse:connection", (event) => {
    hurried.delete(event.target);
    const retry = liveRetries.get(event.target);
    if (retry) retry.failures = 0;
  });
  window.addEventListener("offline", () => setLiveStatus("lost"));
  window.addEventListener("online", () => reconnectNow(true));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") reconnectNow(false);
  });
}
hurryLiveStreams();

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

// A fight's undo or redo reaching an open log (the stream's line says which versions it
// takes back or brings back: data-undoes, data-redoes): grey those moves' lines, marked
// "undone" for screen readers, or show them again. Lines loaded later are older and
// already drawn as they stand now, so only a line newer than all before it counts.
(() => {
  const log = document.getElementById("roll-log");
  if (!log) return;
  const seqOf = (line) => Number(line.dataset?.seq ?? 0);
  let newest = Math.max(0, ...[...log.children].map(seqOf));
  function mark(line, undone, label) {
    const what = line.querySelector(":scope > .roll-what");
    if (!what || line.classList.contains("undone") === undone) return;
    line.classList.toggle("undone", undone);
    const swapped = document.createElement(undone ? "del" : "span");
    swapped.className = "roll-what";
    swapped.append(...what.childNodes);
    what.replaceWith(swapped);
    if (undone) {
      const note = document.createElement("span");
      note.className = "visually-hidden undone-mark";
      note.textContent = `${label}:`;
      swapped.before(note, " ");
    } else {
      line.querySelector(":scope > .undone-mark")?.remove();
    }
  }
  function follow(line) {
    const undoes = line.dataset.undoes ?? line.dataset.redoes;
    if (undoes === undefined) return;
    const undone = "undoes" in line.dataset;
    for (const version of undoes.split(" ").filter(Boolean)) {
      const selector = `li.combat-record[data-encounter="${line.dataset.encounter}"][data-version="${version}"]`;
      for (const target of log.querySelectorAll(selector)) mark(target, undone, line.dataset.undoneLabel);
    }
  }
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const line of change.addedNodes) {
        if (line.nodeType !== Node.ELEMENT_NODE || seqOf(line) <= newest) continue;
        newest = seqOf(line);
        follow(line);
      }
    }
  }).observe(log, { childList: true });
})();

// Offline (issue 47): in a secure context (HTTPS, localhost) the service worker (/sw.js)
// keeps the reader's own sheets to read without a network; the sheet says when it is
// shown from there. On plain HTTP there is no service worker: the sheet says what HTTPS
// would add. Logging out empties what the worker kept (another person may use the phone).
(() => {
  const sw = "serviceWorker" in navigator && window.isSecureContext;
  // Only the characters' pages are its own (its scope): a page it controls sends every
  // request through it, and the table's and the fights' live streams must not wait for a
  // worker to start (two pages of a loaded test run stayed "connecting").
  if (sw && window.location.pathname.startsWith("/characters/")) {
    navigator.serviceWorker.register("/sw.js", { scope: "/characters/" }).catch(() => {});
  }
  const offline = document.querySelector("[data-offline-note]");
  const https = document.querySelector("[data-https-note]");
  if (https && !sw) https.hidden = false;
  if (offline) {
    // Shown from the worker's copy when the server cannot be reached: asked, not guessed
    // (a phone on a LAN without internet still says it is online).
    const mark = () => {
      if (!navigator.onLine) {
        offline.hidden = false;
        return;
      }
      fetch("/healthz", { cache: "no-store" })
        .then((answer) => { offline.hidden = answer.ok; })
        .catch(() => { offline.hidden = false; });
    };
    window.addEventListener("online", mark);
    window.addEventListener("offline", mark);
    mark();
  }
  document.addEventListener("submit", (event) => {
    if (!event.target.matches?.("form[data-clear-offline]") || !("caches" in window)) return;
    event.preventDefault();
    const form = event.target;
    caches.keys()
      .then((names) => Promise.all(names.map((name) => caches.delete(name))))
      .catch(() => {})
      .finally(() => form.submit());
  });
})();
