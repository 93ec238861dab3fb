// The battle map (issue 27): the fight seen from above, in metres, at the top of the
// encounter page. It draws what the panel's JSON block (#map-data, combat/battle_map.py)
// says after every panel the stream or a command brings, so it stays in step with the
// fight; a moved token glides. Tapping a point on your activation asks the server what a
// move there costs (the engine's own preview) and offers "Move here (n KP)"; tapping a foe
// chooses it in the attack form below, whose exact preview the map shows with its button.
// The GM drags tokens to place them. Pan and zoom: @panzoom/panzoom (static/vendor/).
// Everything here can be done with the forms below too (keyboard, screen readers).

(() => {
  const section = document.getElementById("battle-map");
  if (!section || !window.Panzoom) return;
  const NS = "http://www.w3.org/2000/svg";
  const svg = section.querySelector(".map-svg");
  const pan = section.querySelector(".map-pan");
  const viewport = section.querySelector(".map-viewport");
  const sheet = section.querySelector(".map-sheet");
  const scale = section.querySelector(".map-legend");
  const commandForm = section.querySelector(".map-command");
  const words = JSON.parse(document.getElementById(section.dataset.wordsId)?.textContent || "{}");
  const MARGIN = 4; // metres around the combatants
  const MIN_SIZE = 16; // metres: the smallest square the map shows
  const TAP = 8; // px a pointer may travel and still be a tap
  const REACH = 22; // px from a token's centre a finger still means it (issue 43)

  const panzoom = window.Panzoom(pan, {
    maxScale: 8,
    minScale: 0.5,
    step: 0.4,
    excludeClass: "map-drag",
    cursor: "grab",
  });
  viewport.addEventListener("wheel", (event) => panzoom.zoomWithWheel(event));
  section.querySelector("[data-zoom=in]").addEventListener("click", () => panzoom.zoomIn());
  section.querySelector("[data-zoom=out]").addEventListener("click", () => panzoom.zoomOut());
  section.querySelector("[data-zoom=fit]").addEventListener("click", () => panzoom.reset());

  const layer = (name) => {
    const g = document.createElementNS(NS, "g");
    g.setAttribute("class", name);
    svg.append(g);
    return g;
  };
  const ground = layer("map-ground-layer");
  const picture = layer("map-picture-layer");
  const grid = layer("map-grid");
  const shapes = layer("map-scene");
  const fogLayer = layer("map-fog-layer");
  const rings = layer("map-rings");
  const trails = layer("map-trails");
  const plan = layer("map-plan");
  const tokens = layer("map-tokens");

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    parent?.append(node);
    return node;
  }

  let data = null;
  let box = null; // the viewBox in metres: {x, y, w, h}
  let chosen = null; // {kind: "point", x, y} or {kind: "foe", id}
  let drawing = null; // the GM's shape being drawn: {kind: "wall" | "cover", points: [[x, y]]}

  const fmt = (n) =>
    Number(n).toLocaleString(document.documentElement.lang || undefined, { maximumFractionDigits: 1 });
  const byId = (id) => data?.combatants.find((c) => c.id === id);
  const activeOne = () => (data?.active ? byId(data.active) : null);

  // --- The plane: its box, grid and scale -----------------------------------------------------

  function fitBox() {
    const points = data.combatants.flatMap((c) => [[c.x, c.y], ...c.path]);
    for (const shape of data.scene.shapes) points.push(...shape.points);
    const pic = data.scene.picture;
    if (pic) points.push([pic.x, pic.y], [pic.x + pic.width, pic.y + pic.height]);
    if (!points.length) points.push([0, 0]);
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const [x, y] of points) {
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
    const size = Math.max(MIN_SIZE, x1 - x0 + 2 * MARGIN, y1 - y0 + 2 * MARGIN);
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    return {
      x: Math.floor(cx - size / 2),
      y: Math.floor(cy - size / 2),
      w: Math.ceil(size),
      h: Math.ceil(size),
    };
  }

  function inside(b, c) {
    return c.x > b.x + 1 && c.x < b.x + b.w - 1 && c.y > b.y + 1 && c.y < b.y + b.h - 1;
  }

  function drawGrid() {
    grid.replaceChildren();
    ground.replaceChildren();
    el("rect", { x: box.x, y: box.y, width: box.w, height: box.h, class: "map-ground" }, ground);
    for (let x = box.x; x <= box.x + box.w; x += 1) {
      el("line", { x1: x, y1: box.y, x2: x, y2: box.y + box.h, class: x % 5 === 0 ? "major" : "minor" }, grid);
    }
    for (let y = box.y; y <= box.y + box.h; y += 1) {
      el("line", { x1: box.x, y1: y, x2: box.x + box.w, y2: y, class: y % 5 === 0 ? "major" : "minor" }, grid);
    }
    // A 5 m scale bar in the corner.
    const sx = box.x + 1;
    const sy = box.y + box.h - 1;
    el("path", { d: `M${sx} ${sy - 0.4}V${sy}H${sx + 5}V${sy - 0.4}`, class: "map-scale" }, grid);
    const label = el("text", { x: sx + 2.5, y: sy - 0.6, class: "map-scale-label" }, grid);
    label.textContent = "5 m";
    svg.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`);
    scale.textContent = words.scale || "";
  }

  // --- Tokens, trails and rings --------------------------------------------------------------

  const SHAPES = [
    () => el("circle", { r: 0.55 }),
    () => el("rect", { x: -0.5, y: -0.5, width: 1, height: 1 }),
    () => el("path", { d: "M0 -0.62L0.6 0.45H-0.6Z" }),
    () => el("path", { d: "M0 -0.65L0.65 0L0 0.65L-0.65 0Z" }),
  ];

  function tokenOf(c) {
    let g = tokens.querySelector(`[data-id="${CSS.escape(c.id)}"]`);
    if (!g) {
      g = el("g", { "data-id": c.id, "data-testid": `token-${c.id}` }, tokens);
      g.append(SHAPES[c.shape % SHAPES.length]());
      g.firstChild.setAttribute("class", "map-shape");
      el("text", { class: "map-initials", y: 0.05 }, g);
      el("title", {}, g);
      el("text", { class: "map-name", y: 1.25 }, g);
    }
    return g;
  }

  function drawTokens() {
    const seen = new Set();
    for (const c of data.combatants) {
      seen.add(c.id);
      const g = tokenOf(c);
      const status = !c.alive ? "dead" : c.fled ? "fled" : !c.conscious ? "down" : "";
      const classes = ["map-token", `side-${c.shape}`, `posture-${c.posture}`];
      if (status) classes.push(status);
      if (c.active) classes.push("active");
      if (c.prompt) classes.push("prompt");
      if (data.is_gm) classes.push("map-drag");
      if (chosen?.kind === "foe" && chosen.id === c.id) classes.push("chosen");
      g.setAttribute("class", classes.join(" "));
      g.style.transform = `translate(${c.x}px, ${c.y}px)`;
      g.querySelector(".map-initials").textContent = c.initials;
      g.querySelector(".map-name").textContent = c.name;
      const notes = [c.side, c.posture_name || c.posture];
      if (c.active) notes.push(words.you);
      if (c.prompt) notes.push(words.prompt);
      if (status === "dead") notes.push(words.dead);
      if (status === "down") notes.push(words.down);
      if (status === "fled") notes.push(words.fled);
      g.querySelector("title").textContent = `${c.name} (${notes.join(", ")}) ${fmt(c.x)}, ${fmt(c.y)} m`;
    }
    for (const g of [...tokens.children]) if (!seen.has(g.dataset.id)) g.remove();
  }

  function drawTrails() {
    trails.replaceChildren();
    for (const c of data.combatants) {
      if (c.path.length < 2) continue;
      el("polyline", {
        points: c.path.map(([x, y]) => `${x},${y}`).join(" "),
        class: `map-trail side-${c.shape}`,
        "data-testid": `trail-${c.id}`,
      }, trails);
    }
  }

  // The weapon the attack form has chosen, for T10's three ranges.
  function rangesOf(me) {
    if (!me?.ranges?.length) return null;
    const key = attackForm()?.querySelector("select[name=weapon]")?.value;
    return me.ranges.find((r) => r.weapon === key) || me.ranges[0];
  }

  function ring(cx, cy, r, cls, text, testid) {
    el("circle", { cx, cy, r, class: cls, ...(testid ? { "data-testid": testid } : {}) }, rings);
    if (text) {
      const label = el("text", { x: cx, y: cy - r + 0.6, class: "map-band-label" }, rings);
      label.textContent = text;
    }
  }

  function drawRings() {
    rings.replaceChildren();
    const me = activeOne();
    if (me && data.acting) {
      // The move's cost bands: every point within a ring costs its label (or less).
      let inner = 0;
      for (const band of me.bands) {
        ring(me.x, me.y, band.upto, "map-band", band.label);
        inner = band.upto;
      }
      if (me.bands.length) {
        // Beyond the last band: out of reach this round (shaded).
        const far = Math.max(box.w, box.h) * 2;
        el("path", {
          d: `M${me.x - far} ${me.y - far}h${2 * far}v${2 * far}h${-2 * far}Z` +
            `M${me.x + inner} ${me.y}a${inner} ${inner} 0 1 0 ${-2 * inner} 0a${inner} ${inner} 0 1 0 ${2 * inner} 0Z`,
          class: "map-unreachable",
          "fill-rule": "evenodd",
          "data-testid": "map-unreachable",
        }, rings);
      }
      if (data.reach) ring(me.x, me.y, data.reach, "map-reach");
      if (chosen?.kind === "foe") {
        const foe = byId(chosen.id);
        const d = foe ? Math.hypot(foe.x - me.x, foe.y - me.y) : 0;
        const ranges = rangesOf(me);
        if (ranges) {
          // T10: the weapon's close, normal and maximum range.
          for (const key of ["close", "normal", "maximum"]) {
            if (ranges[key] > 0) ring(me.x, me.y, ranges[key], `map-range range-${key}`, words[key], `range-${key}`);
          }
        } else if (data.range_step) {
          // Aoristos: the malus grows with every started 10 m (p. 10).
          for (let r = data.range_step; r <= Math.min(d + data.range_step, 200); r += data.range_step) {
            ring(me.x, me.y, r, "map-range");
          }
        }
      }
    }
    for (const w of data.watch) ring(w.x, w.y, w.r, "map-watch", "", `watch-${w.id}`);
    for (const v of data.vigil) {
      // RÖR in vigilance (p. 9): the metre the engine moves it, the reach toward cover.
      if (!v.melee) {
        ring(v.x, v.y, v.cover_within, "map-vigil-cover");
        ring(v.x, v.y, v.reach, "map-vigil");
      }
      // The drawn cover it knows within 10 m (p. 9), marked: where the move may go.
      for (const index of v.covers || []) {
        const shape = data.scene.shapes.find((item) => item.index === index);
        if (shape) el("polygon", { points: shape.points.map((p) => p.join(",")).join(" "), class: "map-vigil-known", "data-testid": `vigil-cover-${index}` }, rings);
      }
      const chosenTo = vigilChosen?.id === v.id ? vigilChosen.to : null;
      const to = chosenTo || v.to;
      const line = el("line", { x1: v.x, y1: v.y, x2: to[0], y2: to[1], class: "map-vigil-move", "data-testid": `vigil-${v.id}` }, rings);
      el("title", {}, line).textContent = words.vigil;
      el("circle", { cx: to[0], cy: to[1], r: 0.2, class: "map-vigil-to" }, rings);
    }
  }

  // --- The vigilance move (p. 9): the target's own point, chosen on the map -------------------

  let vigilChosen = null;
  function vigilAt(x, y) {
    return (data.vigil || []).find((v) => !v.melee && vigilForm(v.id) && Math.hypot(x - v.x, y - v.y) <= v.reach + 0.5);
  }
  function vigilForm(id) {
    for (const form of document.querySelectorAll("#encounter-state .vigilance-form")) {
      if (form.elements.id?.value === id) return form;
    }
    return null;
  }
  async function chooseVigil(v, x, y) {
    const form = vigilForm(v.id);
    if (!form) return;
    chosen = { kind: "vigil", x, y };
    const prone = form.querySelector("[data-vigil-prone]")?.checked;
    const answer = await previewPoint(v, x, y, "vigil", prone ? { prone: "1" } : {});
    if (!answer) return;
    const where = sheet.querySelector(".map-sheet-head").textContent;
    // The attacker's chance with the properties ticked and RÖR, from where the move ends.
    const boxes = [...form.querySelectorAll('input[type=checkbox][name="properties"]')];
    const ticked = boxes.filter((box) => box.checked).map((box) => box.value);
    if (!ticked.includes("agility")) ticked.push("agility");
    const key = ticked.slice(0, 3).sort().join("+");
    const note = document.createElement("p");
    note.className = "map-note";
    note.dataset.testid = "map-vigil-chance";
    const chance = answer.chances?.[key];
    note.textContent = `${words.vigilChance}: ${chance === undefined ? "–" : chance.toLocaleString(document.documentElement.lang || undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 })} %`;
    sheet.append(note);
    if (answer.confirm) {
      const confirm = document.createElement("p");
      confirm.className = "map-note";
      confirm.dataset.testid = "map-vigil-confirm";
      confirm.textContent = words.vigilConfirm;
      sheet.append(confirm);
    } else if (answer.cover_after) {
      const cover = document.createElement("p");
      cover.className = "map-note";
      cover.textContent = words.vigilCover.replace("%(n)s", answer.cover_after);
      sheet.append(cover);
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.dataset.testid = "map-vigil-here";
    button.textContent = words.vigilHere;
    button.addEventListener("click", () => {
      form.querySelector("[data-vigil-x]").value = x;
      form.querySelector("[data-vigil-y]").value = y;
      const agility = boxes.find((box) => box.value === "agility");
      if (agility && !agility.checked) {
        agility.checked = true;
        agility.dispatchEvent(new Event("change", { bubbles: true }));
      }
      const output = form.closest(".prompt")?.querySelector(".vigilance-chance");
      if (output && answer.chances) {
        output.dataset.chances = JSON.stringify(answer.chances);
        agility?.dispatchEvent(new Event("change", { bubbles: true }));
      }
      const point = form.querySelector("[data-vigil-point]");
      if (point) {
        point.hidden = false;
        point.textContent = where;
      }
      vigilChosen = { id: v.id, to: [x, y] };
      clearChoice();
      drawRings();
      form.scrollIntoView({ block: "nearest" });
    });
    sheet.append(button);
    keepInSight(x, y);
  }

  // --- The scene: a picture under the plane, walls and cover (the GM's) ------------------------

  function drawScene() {
    picture.replaceChildren();
    shapes.replaceChildren();
    const pic = data.scene.picture;
    if (pic?.url) {
      el("image", {
        href: pic.url, x: pic.x, y: pic.y, width: pic.width, height: pic.height,
        preserveAspectRatio: "none", class: pic.shown ? "map-picture" : "map-picture gm-only",
        "data-testid": "map-picture",
      }, picture);
    }
    for (const shape of data.scene.shapes) {
      const points = shape.points.map(([x, y]) => `${x},${y}`).join(" ");
      const node = el(shape.kind === "wall" ? "polyline" : "polygon", {
        points,
        class: `map-${shape.kind}${shape.shown ? "" : " gm-only"}`,
        "data-testid": `map-shape-${shape.index}`,
      }, shapes);
      const title = el("title", {}, node);
      title.textContent = `${words[shape.kind]}${shape.label ? `: ${shape.label}` : ""}`;
    }
    if (drawing?.points.length) {
      el(drawing.kind === "wall" ? "polyline" : "polygon", {
        points: fogCorners(drawing).map(([x, y]) => `${x},${y}`).join(" "),
        class: `map-${drawing.kind} map-drawing`,
        "data-testid": "map-drawing",
      }, shapes);
    }
    drawFog();
  }

  // A fog area's corners as the engine reads its points (rules.scene.fog_points): one
  // point is its 1 m cell, two the rectangle between them, more the shape inside them.
  function fogCorners(shape) {
    const p = shape.points;
    if (shape.kind !== "reveal" && shape.kind !== "hide") return p;
    if (p.length === 1) {
      const [x, y] = p[0].map(Math.floor);
      return [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]];
    }
    if (p.length === 2) return [p[0], [p[1][0], p[0][1]], p[1], [p[0][0], p[1][1]]];
    return p;
  }

  // Fog (issue 47): all of the plane dark but what the areas reveal, each over the last.
  // A player's map has nothing under it (the server leaves out what the fog hides); the
  // GM's is see-through, so the GM still sees and places what is hidden.
  const FAR = 20000; // metres: the fog reaches past any map
  function drawFog() {
    fogLayer.replaceChildren();
    const fog = data.scene.fog;
    svg.dataset.fog = fog?.on ? String(fog.areas.length) : "off";
    if (!fog?.on) return;
    const defs = el("defs", {}, fogLayer);
    const mask = el("mask", { id: "map-fog-mask", maskUnits: "userSpaceOnUse", x: -FAR, y: -FAR, width: 2 * FAR, height: 2 * FAR }, defs);
    el("rect", { x: -FAR, y: -FAR, width: 2 * FAR, height: 2 * FAR, fill: "white" }, mask);
    for (const area of fog.areas) {
      el("polygon", { points: area.points.map(([x, y]) => `${x},${y}`).join(" "), fill: area.reveal ? "black" : "white" }, mask);
    }
    el("rect", {
      x: -FAR, y: -FAR, width: 2 * FAR, height: 2 * FAR, mask: "url(#map-fog-mask)",
      class: data.is_gm ? "map-fog gm-only" : "map-fog", "data-testid": "map-fog",
    }, fogLayer);
  }

  // Whether drawn cover lies on the line from a to b (the map's note; the engine counts
  // cover as its forms set it).
  function coverOnLine(a, b) {
    const cross = (p, q, r) => (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
    const meets = (p1, p2, q1, q2) =>
      cross(p1, p2, q1) * cross(p1, p2, q2) < 0 && cross(q1, q2, p1) * cross(q1, q2, p2) < 0;
    return data.scene.shapes.some((shape) => {
      if (shape.kind !== "cover") return false;
      const ring = [...shape.points, shape.points[0]];
      return ring.slice(1).some((q, i) => meets(a, b, ring[i], q));
    });
  }

  function draw() {
    const fresh = JSON.parse(document.getElementById("map-data")?.textContent || "null");
    if (!fresh) return;
    data = fresh;
    if (!box || data.combatants.some((c) => !inside(box, c))) {
      box = fitBox();
      drawGrid();
    }
    // Where everyone is, for tests and tools: "c1:3,0 c2:6,2".
    svg.dataset.positions = data.combatants.map((c) => `${c.id}:${c.x},${c.y}`).join(" ");
    // A vigilance point chosen on the map lives as long as the form that holds it.
    if (vigilChosen && !vigilForm(vigilChosen.id)?.querySelector("[data-vigil-x]")?.value) vigilChosen = null;
    drawScene();
    drawTrails();
    drawTokens();
    drawRings();
    if (chosen?.kind === "point" && !data.acting && !data.is_gm) clearChoice();
  }

  // --- Taps: a point to move to, a foe to attack ----------------------------------------------

  // The token a finger at (clientX, clientY) means: the nearest whose centre is within
  // REACH px (or within the token as drawn, when zoomed in), so a tap beside a small token
  // chooses it and is never taken for a move there (issue 43: a tap 10 px off a foe
  // offered a move).
  function tokenAt(clientX, clientY) {
    const ctm = svg.getScreenCTM();
    if (!ctm || !data) return null;
    const reach = Math.max(REACH, 0.7 * Math.hypot(ctm.a, ctm.b));
    let best = null;
    let bestDistance = reach;
    for (const c of data.combatants) {
      const p = new DOMPoint(c.x, c.y).matrixTransform(ctm);
      const d = Math.hypot(p.x - clientX, p.y - clientY);
      if (d <= bestDistance) {
        best = tokens.querySelector(`[data-id="${CSS.escape(c.id)}"]`);
        bestDistance = d;
      }
    }
    return best;
  }

  // The sheet of what a tap offers sits at the bottom of the screen, under the thumb; the
  // page scrolls so that the point or token it is about stays above it (issue 43: "Flytta
  // hit" was at the screen's foot, "Anfall" 334 px below it).
  function keepInSight(x, y) {
    if (sheet.hidden) return;
    document.body.style.paddingBottom = `${sheet.offsetHeight + 8}px`;
    const ctm = svg.getScreenCTM();
    if (!ctm) return;
    const p = new DOMPoint(x, y).matrixTransform(ctm);
    const room = 1.4 * Math.hypot(ctm.a, ctm.b) + 12; // the token and its name below it
    const over = p.y + room - sheet.getBoundingClientRect().top;
    if (over > 0) window.scrollBy({ top: over, behavior: "instant" });
  }

  function metresAt(event) {
    // The screen's matrix covers the viewBox's fit and the pan and zoom around it.
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
    const { x, y } = point;
    // Half metres, as the typed fields step.
    return [Math.round(x * 2) / 2 || 0, Math.round(y * 2) / 2 || 0]; // never −0
  }

  function clearChoice() {
    chosen = null;
    plan.replaceChildren();
    sheet.replaceChildren();
    sheet.hidden = true;
    document.body.style.paddingBottom = "";
    drawTokens();
  }

  // The sheet's own way out: a close button first in it (Escape does the same).
  function openSheet() {
    sheet.replaceChildren();
    sheet.hidden = false;
    const close = document.createElement("button");
    close.type = "button";
    close.className = "map-sheet-close";
    close.dataset.testid = "map-sheet-close";
    close.setAttribute("aria-label", words.closeSheet || "×");
    close.textContent = "×";
    close.addEventListener("click", clearChoice);
    sheet.append(close);
  }

  let previewAsked = 0;
  // A point tapped for `who`'s move (its own, or a vigilance move): the path drawn, the
  // engine's preview asked (`params` besides the point), the sheet opened with the metres.
  // The preview's answer, or null when a newer tap came first or the move is refused (the
  // sheet then says why).
  async function previewPoint(who, x, y, kind, params = {}) {
    plan.replaceChildren();
    el("line", { x1: who.x, y1: who.y, x2: x, y2: y, class: "map-path", "data-testid": "map-path" }, plan);
    el("circle", { cx: x, cy: y, r: 0.3, class: "map-target" }, plan);
    const asked = ++previewAsked;
    const url = new URL(section.dataset.previewUrl, window.location.href);
    url.search = new URLSearchParams({ id: who.id, x, y, ...params }).toString();
    let answer;
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      answer = await response.json();
    } catch {
      return null;
    }
    if (asked !== previewAsked || chosen?.kind !== kind) return null;
    openSheet();
    const head = document.createElement("p");
    head.className = "map-sheet-head";
    head.textContent = `${fmt(answer.metres ?? Math.hypot(x - who.x, y - who.y))} m → (${fmt(x)}; ${fmt(y)})`;
    sheet.append(head);
    if (answer.error || answer.refused) {
      const why = document.createElement("p");
      why.className = "map-refused";
      why.dataset.testid = "map-refused";
      why.textContent = `${words.cannot}: ${answer.refused || answer.error}`;
      sheet.append(why);
      plan.firstChild?.classList.add("refused");
      keepInSight(x, y);
      return null;
    }
    return answer;
  }

  async function choosePoint(x, y) {
    const me = activeOne();
    if (!me || !data.acting) return;
    chosen = { kind: "point", x, y };
    drawTokens();
    const answer = await previewPoint(me, x, y, "point");
    if (!answer) return;
    const notes = [];
    if (answer.extended) {
      notes.push(words.extended.replace("%(now)s", answer.now).replace("%(later)s", answer.later));
    }
    if (answer.escape?.length) notes.push(words.escape);
    if (answer.watchers?.length) notes.push(words.watch);
    for (const note of notes) {
      const p = document.createElement("p");
      p.className = "map-note";
      p.textContent = note;
      sheet.append(p);
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.dataset.testid = "map-move";
    button.textContent = `${words.moveHere} (${answer.label})`;
    button.addEventListener("click", () => send({ type: "move", id: me.id, x, y }));
    sheet.append(button);
    if (data.is_gm) sheet.append(npcButton(x, y));
    keepInSight(x, y);
  }

  // --- The GM: an NPC where the map is tapped, walls and cover drawn point by point -------------

  function npcButton(x, y) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.testid = "map-add-npc";
    button.textContent = `${words.addNpc} (${fmt(x)}; ${fmt(y)})`;
    button.addEventListener("click", () => addNpcAt(x, y));
    return button;
  }

  function offerNpc(x, y) {
    chosen = { kind: "point", x, y };
    plan.replaceChildren();
    el("circle", { cx: x, cy: y, r: 0.3, class: "map-target" }, plan);
    openSheet();
    sheet.append(npcButton(x, y));
    keepInSight(x, y);
  }

  // The NPC form of the panel (opened and loaded where a started fight keeps it folded)
  // gets the point; the GM names the NPC and adds it there.
  async function addNpcAt(x, y) {
    const find = () => document.querySelector('#encounter-state [data-testid="npc-form"]');
    if (!find()) {
      const fold = document.querySelector("#encounter-state details.add-fold");
      if (fold) fold.open = true;
      for (let i = 0; i < 50 && !find(); i += 1) await new Promise((r) => setTimeout(r, 100));
    }
    const form = find();
    if (!form) return;
    for (const [name, value] of [["x", x], ["y", y]]) {
      const field = form.querySelector(`input[name=${name}]`);
      if (field) field.value = value;
    }
    clearChoice();
    form.closest("details")?.setAttribute("open", "");
    form.scrollIntoView({ block: "center" });
    form.querySelector("input[type=text], input:not([type=hidden])")?.focus();
  }

  const drawButtons = [...section.querySelectorAll("[data-draw]")];
  const shapeForm = section.querySelector(".scene-form");
  function startDrawing(kind) {
    drawing = drawing?.kind === kind ? null : { kind, points: [] };
    for (const b of drawButtons) b.setAttribute("aria-pressed", String(b.dataset.draw === drawing?.kind));
    clearChoice();
    drawSheet();
    drawScene();
    if (drawing) viewport.scrollIntoView({ block: "nearest" }); // the taps go on the map
  }
  for (const b of drawButtons) b.addEventListener("click", () => startDrawing(b.dataset.draw));

  function drawSheet() {
    sheet.replaceChildren();
    sheet.hidden = !drawing;
    if (!drawing) return;
    const head = document.createElement("p");
    head.className = "map-sheet-head";
    head.dataset.testid = "map-drawing-count";
    const hint = drawing.kind === "reveal" || drawing.kind === "hide" ? words.fogHint : words.drawHint;
    head.textContent = `${words[drawing.kind]}: ${drawing.points.length} ${words.points} · ${hint}`;
    sheet.append(head);
    const least = { wall: 2, cover: 3, reveal: 1, hide: 1 }[drawing.kind];
    for (const [text, testid, action, enabled] of [
      [words.done, "map-draw-done", finishDrawing, drawing.points.length >= least],
      [words.undoPoint, "map-draw-undo", () => { drawing.points.pop(); drawSheet(); drawScene(); }, drawing.points.length > 0],
      [words.cancel, "map-draw-cancel", () => startDrawing(drawing.kind), true],
    ]) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.testid = testid;
      button.textContent = text;
      button.disabled = !enabled;
      if (testid === "map-draw-done") button.className = "primary";
      button.addEventListener("click", action);
      sheet.append(button);
    }
  }

  function addPoint(x, y) {
    drawing.points.push([x, y]);
    drawSheet();
    drawScene();
  }

  // The drawn shape goes through the typed form (kind, points, shown), as one command; a
  // fog area through the fog's form (points, reveal or hide).
  const fogForm = section.querySelector(".fog-form");
  function finishDrawing() {
    if (!drawing) return;
    const fogged = drawing.kind === "reveal" || drawing.kind === "hide";
    const form = fogged ? fogForm : shapeForm;
    if (!form) return;
    if (fogged) form.elements.reveal.value = String(drawing.kind === "reveal");
    else form.elements.kind.value = drawing.kind;
    form.elements.points.value = drawing.points.map(([x, y]) => `${x},${y}`).join(" ");
    startDrawing(drawing.kind); // ends the drawing
    form.requestSubmit();
  }

  // The active combatant's attack form (Aoristos "attack-form", T10 "attack-form-<id>").
  function attackForm() {
    const me = activeOne();
    const panel = document.getElementById("encounter-state");
    return panel?.querySelector(`[data-testid="attack-form-${CSS.escape(me?.id ?? "")}"]`) ||
      panel?.querySelector('[data-testid="attack-form"]');
  }

  // Phobia's attacks are rows, one per target and weapon, each with its chance and form.
  function attackRows(id) {
    const table = document.querySelector('#encounter-state [data-testid="attack-options"]');
    return [...(table?.querySelectorAll("tr") ?? [])].filter((row) =>
      row.querySelector(`form input[name=target][value="${CSS.escape(id)}"]`));
  }

  function chooseFoe(id) {
    const me = activeOne();
    const foe = byId(id);
    if (!me || !foe || !data.acting || id === me.id) return;
    const form = attackForm();
    const select = form?.querySelector("select[name=target]");
    const offered = select && [...select.options].some((o) => o.value === id);
    if (!offered && !attackRows(id).length) return;
    chosen = { kind: "foe", id };
    plan.replaceChildren();
    el("line", { x1: me.x, y1: me.y, x2: foe.x, y2: foe.y, class: "map-aim" }, plan);
    drawTokens();
    drawRings();
    if (offered) {
      select.value = id;
      // T10's range is the distance typed with the attack: the map types it, to the cm.
      const distance = form.querySelector("input[name=distance]");
      if (distance) distance.value = Math.round(Math.hypot(foe.x - me.x, foe.y - me.y) * 100) / 100;
      select.dispatchEvent(new Event("change", { bubbles: true })); // the form's preview follows
    }
    renderFoe();
  }

  // The attack's exact preview is the panel's (the attack form's .preview, or Phobia's rows
  // with their chances): the map shows a copy, with the button that attacks.
  function renderFoe() {
    const me = activeOne();
    const foe = chosen?.kind === "foe" ? byId(chosen.id) : null;
    if (!me || !foe) return;
    const d = Math.round(Math.hypot(foe.x - me.x, foe.y - me.y) * 100) / 100; // as the engine reads it
    openSheet();
    const head = document.createElement("p");
    head.className = "map-sheet-head";
    head.dataset.testid = "map-foe";
    const ranges = rangesOf(me);
    let where = "";
    if (data.reach) where = d <= data.reach ? words.inReach : words.outOfReach;
    if (ranges) {
      where = d <= ranges.close ? words.close : d <= ranges.normal ? words.normal
        : d <= ranges.maximum ? words.maximum : words.beyond;
    }
    head.textContent = `${foe.name} · ${words.distance} ${fmt(d)} m${where ? ` · ${where}` : ""}`;
    sheet.append(head);
    if (coverOnLine([me.x, me.y], [foe.x, foe.y])) {
      const note = document.createElement("p");
      note.className = "map-note";
      note.dataset.testid = "map-cover-note";
      note.textContent = words.coverOnLine;
      sheet.append(note);
    }
    const copy = (html) => {
      const div = document.createElement("div");
      div.className = "map-preview";
      div.dataset.testid = "map-preview";
      div.innerHTML = html;
      for (const node of div.querySelectorAll("[id]")) node.removeAttribute("id");
      for (const node of div.querySelectorAll("[data-testid]")) {
        node.dataset.testid = `map-${node.dataset.testid}`;
      }
      sheet.append(div);
    };
    // The form is found when the button is pressed: a new panel may have come since.
    const attackButton = (formNow, testid, text) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "primary";
      button.dataset.testid = testid;
      button.textContent = text;
      button.addEventListener("click", () => {
        const form = formNow();
        clearChoice(); // sent: the sheet goes, as after a move (a new tap chooses again)
        form?.requestSubmit();
      });
      sheet.append(button);
    };
    const form = attackForm();
    // The button first, the preview below it: the sheet holds a screen's lower half, and
    // a long preview (Aoristos' damage and areas) had the button below its fold.
    if (form?.querySelector("select[name=target]")?.value === foe.id) {
      attackButton(() => attackForm(), "map-attack", words.attack);
      copy(form.querySelector(".preview")?.innerHTML ?? "");
      keepInSight(foe.x, foe.y);
      return;
    }
    // Phobia: each weapon's row, its own attack and its chance.
    attackRows(foe.id).forEach((row, i) => {
      const cells = [...row.children].slice(1, -1).map((td) => td.textContent.trim());
      attackButton(() => attackRows(foe.id)[i]?.querySelector("form"),
        i ? `map-attack-${i + 1}` : "map-attack", `${words.attack}: ${cells[0]}`);
      copy(`<p>${cells.map((t) => t.replace(/[<&>]/g, "")).join(" · ")}</p>`);
    });
    keepInSight(foe.x, foe.y);
  }


  // A command from the map goes through the same form post as the panel's own forms.
  function send(fields) {
    const panel = document.getElementById("encounter-state");
    commandForm.elements.version.value = panel?.dataset.version ?? "";
    for (const name of ["type", "id", "x", "y"]) commandForm.elements[name].value = fields[name] ?? "";
    clearChoice();
    commandForm.requestSubmit();
  }

  // Pointer handling: a tap chooses, a drag pans (panzoom) or, for the GM, places a token.
  let down = null;
  svg.addEventListener("pointerdown", (event) => {
    const token = tokenAt(event.clientX, event.clientY);
    down = { x: event.clientX, y: event.clientY, token, dragging: false };
    if (token && data?.is_gm) {
      svg.setPointerCapture(event.pointerId);
      event.preventDefault();
      event.stopPropagation(); // a finger beside the token drags it, and does not pan too
    }
  });
  svg.addEventListener("pointermove", (event) => {
    if (!down?.token || !data?.is_gm) return;
    if (!down.dragging && Math.hypot(event.clientX - down.x, event.clientY - down.y) < TAP) return;
    down.dragging = true;
    const [x, y] = metresAt(event);
    down.token.style.transition = "none";
    down.token.style.transform = `translate(${x}px, ${y}px)`;
  });
  svg.addEventListener("pointerup", (event) => {
    const start = down;
    down = null;
    if (!start || !data) return;
    if (start.dragging) {
      start.token.style.transition = "";
      const [x, y] = metresAt(event);
      send({ type: "update_combatant", id: start.token.dataset.id, x, y });
      return;
    }
    if (Math.hypot(event.clientX - start.x, event.clientY - start.y) >= TAP) return; // a pan
    const token = drawing ? null : start.token;
    if (token) {
      // A token was meant: its attack when it is a foe, nothing else (never a move there).
      const me = activeOne();
      if (me && token.dataset.id !== me.id) chooseFoe(token.dataset.id);
      return;
    }
    const [x, y] = metresAt(event);
    const vigil = drawing ? null : vigilAt(x, y);
    if (drawing) addPoint(x, y);
    else if (vigil) chooseVigil(vigil, x, y);
    else if (data.acting) choosePoint(x, y);
    else if (data.is_gm) offerNpc(x, y);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && drawing) startDrawing(drawing.kind);
    else if (event.key === "Escape" && chosen) clearChoice();
  });

  // The scene's forms outside the panel post against the panel's version (the newest the
  // page has); a folded list in the panel stays open when a new panel comes.
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.closest?.("#battle-map") || !form.elements.version) return;
    const panel = document.getElementById("encounter-state");
    if (panel) form.elements.version.value = panel.dataset.version;
  }, true);
  const keptOpen = new Set();
  document.addEventListener("toggle", (event) => {
    const key = event.target.dataset?.keepOpen;
    if (key) event.target.open ? keptOpen.add(key) : keptOpen.delete(key);
  }, true);
  function reopen() {
    for (const key of keptOpen) document.querySelector(`[data-keep-open="${key}"]`)?.setAttribute("open", "");
  }

  // Every new panel (a record from the stream, a command's answer) redraws the map; the
  // attack preview comes into the panel after the target changes (and with each new
  // panel), and the map's copy of it follows.
  const host = document.getElementById("encounter-state")?.parentElement;
  if (host) {
    new MutationObserver((changes) => {
      const panel = document.getElementById("encounter-state");
      if (panel && !panel.dataset.mapped) {
        panel.dataset.mapped = "1";
        reopen();
        draw();
      }
      const previewChanged = (m) => m.target === host || m.target.closest?.(".attack-form .preview");
      if (chosen?.kind === "foe" && changes.some(previewChanged)) {
        renderFoe();
      }
    }).observe(host, { childList: true, subtree: true });
  }
  const first = document.getElementById("encounter-state");
  if (first) first.dataset.mapped = "1";
  draw();
})();
