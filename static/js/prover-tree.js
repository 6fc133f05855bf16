// The prover's search tree, drawn as SVG from the JSON the server renders into
// [data-prover-tree] (templates/provers/run.html#tree). The websocket replaces that element
// whole as the search goes; a MutationObserver redraws whatever new tree appears.
// Nodes are proof states (click one for its goals); edges are tactics with their prior,
// visits and value. Plain DOM, no libraries (CSP: script-src 'self').
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const DX = 96; // horizontal room per leaf
  const DY = 64; // vertical room per depth
  const R = 8; // node radius
  const selected = new Map(); // tree section id -> node id shown in the goals box

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    if (parent) parent.appendChild(node);
    return node;
  }

  function clip(text, limit) {
    return text.length > limit ? text.slice(0, limit - 1) + "…" : text;
  }

  // Leaves take consecutive columns; a parent sits above the middle of its children.
  function layout(nodes) {
    const byId = new Map(nodes.map((n) => [n.id, Object.assign({ kids: [] }, n)]));
    let root = null;
    for (const node of byId.values()) {
      const parent = node.parent === null ? null : byId.get(node.parent);
      if (parent) parent.kids.push(node);
      else if (root === null) root = node;
    }
    let column = 0;
    const stack = [[root, false]];
    while (stack.length) {
      const [node, done] = stack.pop();
      if (!node.kids.length) {
        node.x = column++;
      } else if (done) {
        node.x = (node.kids[0].x + node.kids[node.kids.length - 1].x) / 2;
      } else {
        stack.push([node, true]);
        for (let i = node.kids.length - 1; i >= 0; i--) stack.push([node.kids[i], false]);
      }
    }
    return { byId, columns: Math.max(column, 1) };
  }

  function describe(node) {
    const bits = [node.tactic || "(root)", "prior " + node.prior];
    if (node.visits) bits.push(node.visits + " visits");
    bits.push("value " + node.value);
    if (node.failed) bits.push(node.failed + " tactics failed here");
    if (node.same_as !== null && node.same_as !== undefined) bits.push("same state as #" + node.same_as);
    return bits.join(" · ");
  }

  function draw(section) {
    const raw = section.getAttribute("data-prover-tree") || "";
    if (section.dataset.drawn === raw) return;
    section.dataset.drawn = raw;
    const canvas = section.querySelector("[data-tree-canvas]");
    if (!canvas) return;
    canvas.textContent = "";
    let data;
    try {
      data = JSON.parse(raw);
    } catch (error) {
      return;
    }
    if (!data.nodes || !data.nodes.length) return;
    const { byId, columns } = layout(data.nodes);
    const onPath = new Set(data.path || []);
    const depth = Math.max(...data.nodes.map((n) => n.depth));
    const svg = el("svg", {
      class: "tree-svg",
      width: columns * DX + 20,
      height: (depth + 1) * DY + 20,
      role: "img",
      "aria-label": "search tree with " + data.nodes.length + " proof states",
    }, canvas);
    const x = (n) => 10 + n.x * DX + DX / 2;
    const y = (n) => 16 + n.depth * DY;
    const edges = el("g", { class: "edges" }, svg);
    const states = el("g", { class: "states" }, svg);
    for (const node of byId.values()) {
      const parent = node.parent === null ? null : byId.get(node.parent);
      if (parent) {
        const path = onPath.has(node.id) && onPath.has(parent.id);
        const edge = el("g", { class: "edge " + node.status + (path ? " on-path" : "") }, edges);
        el("line", { x1: x(parent), y1: y(parent), x2: x(node), y2: y(node) }, edge);
        // Above the child, where siblings are a column apart: labels never overlap.
        const label = el("text", { x: x(node), y: y(node) - R - 4 }, edge);
        label.textContent = clip(node.tactic, 16);
        el("title", {}, edge).textContent = describe(node);
      }
      const classes = ["state", node.status];
      if (onPath.has(node.id)) classes.push("on-path");
      if (node.busy) classes.push("busy");
      const circle = el("circle", { cx: x(node), cy: y(node), r: R, class: classes.join(" "),
                                     "data-node-id": node.id, tabindex: 0 }, states);
      el("title", {}, circle).textContent = "#" + node.id + " " + describe(node);
      if (node.visits) {
        const count = el("text", { x: x(node) + R + 2, y: y(node) + 4, class: "visits" }, states);
        count.textContent = "N" + node.visits;
      }
    }
    const chosen = selected.get(section.id);
    if (chosen !== undefined && byId.has(chosen)) show(section, byId.get(chosen));
  }

  function show(section, node) {
    const box = section.querySelector("[data-tree-goals]");
    if (!box) return;
    selected.set(section.id, node.id);
    const goals = node.goals && node.goals.length ? node.goals.join("\n\n") : "no goals: closed";
    box.textContent = "#" + node.id + " (" + node.status + ") " + describe(node) + "\n\n" + goals;
    box.hidden = false;
    section.querySelectorAll("circle.selected").forEach((c) => c.classList.remove("selected"));
    const circle = section.querySelector('circle[data-node-id="' + node.id + '"]');
    if (circle) circle.classList.add("selected");
  }

  function pick(event) {
    const circle = event.target.closest ? event.target.closest("circle[data-node-id]") : null;
    if (!circle) return;
    const section = circle.closest("[data-prover-tree]");
    const id = Number(circle.getAttribute("data-node-id"));
    const node = JSON.parse(section.getAttribute("data-prover-tree")).nodes.find((n) => n.id === id);
    if (node) show(section, node);
  }

  function scan() {
    document.querySelectorAll("[data-prover-tree]").forEach(draw);
  }

  document.addEventListener("click", pick);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter") pick(event);
  });
  new MutationObserver(scan).observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-prover-tree"],
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scan);
  else scan();
})();

// A run that is going shows how long it has been going, counted here each second from the
// start time the server rendered ([data-elapsed-since], Unix seconds): a long silent model
// turn still shows time passing.
(function () {
  "use strict";
  function format(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    if (s < 60) return `${s} s`;
    const m = Math.floor(s / 60);
    return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  }
  function tick() {
    document.querySelectorAll("[data-elapsed-since]").forEach((node) => {
      const since = Number(node.dataset.elapsedSince);
      const out = node.querySelector("[data-elapsed]");
      if (since && out) out.textContent = format(Date.now() / 1000 - since);
    });
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
})();
