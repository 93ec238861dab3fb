// Keep the screen awake while a table, sheet or fight page is open (issue 47), with a
// toggle remembered on this device. The Screen Wake Lock API exists only in a secure
// context (HTTPS, localhost): on a LAN over plain HTTP the phone's screen would lock in
// the middle of a fight, so there a silent looping video keeps it awake (nosleep.js,
// static/vendor/nosleep), which some browsers start only after a tap. A wake lock is
// released when the page is hidden; it is taken again when the page is shown.
(() => {
  "use strict";
  const control = document.querySelector("[data-keep-awake]");
  if (!control) return;
  const KEY = "aoristos-keep-awake";
  const button = control.querySelector("button");
  const state = control.querySelector("[data-awake-state]");
  const native = "wakeLock" in navigator;
  let wanted = localStorage.getItem(KEY) !== "off";
  let sentinel = null; // the wake lock held, if any
  let video = null; // the fallback (a NoSleep), made on first use
  let taking = false;

  function show(how) {
    control.dataset.awake = how;
    state.textContent = control.dataset[`text${how[0].toUpperCase()}${how.slice(1)}`] || "";
    button.setAttribute("aria-pressed", String(wanted));
  }

  function held() {
    return sentinel !== null || (video !== null && video.isEnabled);
  }

  async function take() {
    if (!wanted || taking || held() || document.visibilityState !== "visible") return;
    taking = true;
    try {
      if (native) {
        sentinel = await navigator.wakeLock.request("screen");
        sentinel.addEventListener("release", () => {
          sentinel = null;
          if (wanted && document.visibilityState === "visible") take(); // released by the system
        });
        show("lock");
      } else if (window.NoSleep) {
        if (video === null) {
          video = new window.NoSleep();
          // In the page, not detached: it plays where the page is shown, out of sight.
          if (video.noSleepVideo) {
            video.noSleepVideo.classList.add("keep-awake-video");
            video.noSleepVideo.setAttribute("aria-hidden", "true");
            control.append(video.noSleepVideo);
          }
        }
        await video.enable();
        show("video");
      } else {
        show("none");
      }
    } catch {
      sentinel = null;
      // A video waits for a tap (the autoplay rules); a refused lock tries again then too.
      show(native ? "refused" : "tap");
    } finally {
      taking = false;
    }
  }

  function release() {
    if (sentinel) sentinel.release();
    sentinel = null;
    if (video) video.disable();
    show("off");
  }

  button.addEventListener("click", () => {
    wanted = !wanted;
    localStorage.setItem(KEY, wanted ? "on" : "off");
    if (wanted) take();
    else release();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") take();
  });
  // A tap anywhere is the gesture a video (or a refused lock) may need.
  document.addEventListener("pointerdown", () => take(), { capture: true, passive: true });
  document.addEventListener("keydown", () => take(), { capture: true, passive: true });
  if (wanted) take();
  else show("off");
})();
