// Graph explorer: draws entity neighbourhoods with cytoscape from /api/graph/neighborhood. Names are only ever
// given to cytoscape as data (drawn as canvas text) or set with textContent, never as HTML. Details come
// from the server as htmx fragments. A large neighbourhood is drawn in rings around what was asked for
// (cytoscape's concentric layout), PAGE facts at a time with "Show more"; labels that would cover another
// label or a circle are left out, most connected names first, and shown while the pointer is on them.
(function () {
  "use strict";

  var PAGE = 30; // facts drawn at first, and added by each "Show more"
  var RINGS = 12; // above this many names the drawing is in rings rather than force-directed
  var palette = ["#1d5fa8", "#1f7a3d", "#9a5b00", "#7a3d9a", "#b42318", "#0f7b80", "#5b6169", "#a8326d"];
  function colour(type) {
    var h = 0;
    for (var i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
    return palette[h % palette.length];
  }

  function init() {
    var el = document.getElementById("graph-canvas");
    if (!el || typeof cytoscape !== "function") return;
    var start = (el.dataset.entities || "").split(",").filter(Boolean);
    var facts = el.dataset.facts || "";
    var hidden = {};
    var cy = cytoscape({
      container: el,
      wheelSensitivity: 0.3,
      style: [
        { selector: "node", style: {
          "background-color": "data(colour)", "label": "data(name)", "color": "#1f2328", "font-size": 12,
          "text-valign": "bottom", "text-margin-y": 4, "width": 26, "height": 26,
          "text-wrap": "ellipsis", "text-max-width": "150px",
          "text-background-color": "#ffffff", "text-background-opacity": 0.8, "text-background-padding": 2 } },
        { selector: "node.start", style: { "border-width": 4, "border-color": "#f0a000", "width": 34, "height": 34 } },
        // Labels pointing away from the centre of the rings: left of a name on the left, and so on.
        { selector: "node.lab-left", style: { "text-halign": "left", "text-valign": "center", "text-margin-x": -6, "text-margin-y": 0 } },
        { selector: "node.lab-right", style: { "text-halign": "right", "text-valign": "center", "text-margin-x": 6, "text-margin-y": 0 } },
        { selector: "node.lab-top", style: { "text-valign": "top", "text-margin-y": -4 } },
        { selector: "node.nolabel", style: { "label": "" } },
        { selector: "node.hover, node:selected", style: { "label": "data(name)", "z-index": 20, "text-background-opacity": 1,
          "text-wrap": "none" } },
        { selector: "edge", style: {
          "width": 2, "line-color": "#b8b4a9", "target-arrow-color": "#b8b4a9", "target-arrow-shape": "triangle",
          "curve-style": "bezier", "label": "", "font-size": 10, "color": "#5b6169",
          "text-rotation": "autorotate", "text-background-color": "#ffffff", "text-background-opacity": 0.8 } },
        { selector: "edge.labelled, edge:selected", style: { "label": "data(label)" } },
        { selector: ":selected", style: { "border-width": 4, "border-color": "#1d5fa8", "line-color": "#1d5fa8", "target-arrow-color": "#1d5fa8" } },
        { selector: ".filtered", style: { "display": "none" } }
      ]
    });

    var more = { keys: [], limit: PAGE };
    var moreButton = document.getElementById("graph-more");

    function load(keys, onlyFacts, limit) {
      var q = new URLSearchParams();
      keys.forEach(function (k) { q.append("entity", k); });
      if (onlyFacts) q.set("facts", onlyFacts);
      else q.set("limit", String(limit || PAGE));
      return fetch("/api/graph/neighborhood?" + q.toString(), { credentials: "same-origin" })
        .then(function (r) { if (!r.ok) throw new Error("status " + r.status); return r.json(); })
        .then(function (g) {
          var added = cy.collection();
          g.nodes.forEach(function (n) {
            if (cy.getElementById(n.key).nonempty()) return;
            var type = n.type || "other";
            added = added.union(cy.add({ group: "nodes", data: { id: n.key, name: n.name, type: type, colour: colour(type) } }));
          });
          g.edges.forEach(function (e) {
            if (cy.getElementById(e.id).nonempty()) return;
            if (cy.getElementById(e.source).empty() || cy.getElementById(e.target).empty()) return;
            var values = Object.keys(e.values || {}).map(function (k) { return k.replace(/_/g, " ") + ": " + e.values[k]; });
            var label = e.label + (values.length ? " (" + values.join(", ") + ")" : "");
            added = added.union(cy.add({ group: "edges", data: { id: e.id, source: e.source, target: e.target, label: label } }));
          });
          keys.forEach(function (k) { cy.getElementById(k).addClass("start"); });
          // Edge labels only while they stay readable; otherwise a selected line shows its label.
          cy.edges().toggleClass("labelled", cy.edges().length <= 20);
          applyFilter();
          buildFilter();
          layout();
          if (!onlyFacts) {
            more = { keys: keys, limit: limit || PAGE };
            if (moreButton) {
              moreButton.hidden = !g.more;
              moreButton.textContent = "Show more (" + cy.nodes().length + " names drawn)";
            }
          }
          el.dataset.nodes = String(cy.nodes().length);
          el.dataset.edges = String(cy.edges().length);
          return added;
        })
        .catch(function () { showMessage("The graph could not be loaded. Reload the page to try again."); });
    }

    // layout draws a few names force-directed and many in rings around the names asked for, then places
    // the labels.
    function layout() {
      var shown = cy.nodes(":visible");
      // Many names get a taller canvas (set through the CSSOM, which the CSP allows), so that their rings
      // are not drawn smaller than one can read.
      var height = shown.length > 40 ? "46rem" : "";
      if (el.style.height !== height) {
        el.style.height = height;
        cy.resize();
      }
      if (shown.length > RINGS) {
        cy.layout({ name: "concentric", animate: false, padding: 30, avoidOverlap: true, minNodeSpacing: 14,
          startAngle: 3 / 2 * Math.PI, eles: cy.elements(":visible"),
          concentric: function (n) { return n.hasClass("start") ? 1e6 : n.degree(false); },
          levelWidth: function () { return 1; } }).run();
      } else {
        cy.layout({ name: "cose", animate: false, padding: 30, nodeRepulsion: function () { return 9000; } }).run();
      }
      fitView();
      placeLabels(true);
    }

    function fitView() {
      cy.fit(cy.elements(":visible"), 24);
      if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(); } // a few nodes should not fill the screen
    }

    function overlaps(a, b, pad) {
      return a.x1 < b.x2 + pad && b.x1 < a.x2 + pad && a.y1 < b.y2 + pad && b.y1 < a.y2 + pad;
    }

    // placeLabels points each label away from the middle of the drawing, then, once cytoscape has drawn
    // them where they go (it places labels when it renders), keeps, most connected names first, only the
    // labels that cover no label kept before and no other circle; the others are shown on hover.
    // data-labelled on the canvas is the count kept, set when they are placed.
    var placing = 0;
    function placeLabels(refit) {
      var shown = cy.nodes(":visible");
      delete el.dataset.labelled;
      if (shown.empty()) return;
      var starts = shown.filter(".start");
      var box = (starts.nonempty() ? starts : shown).boundingBox({ includeLabels: false });
      var cx = (box.x1 + box.x2) / 2, cy0 = (box.y1 + box.y2) / 2;
      var rings = shown.length > RINGS;
      shown.removeClass("nolabel lab-left lab-right lab-top");
      shown.forEach(function (n) {
        if (!rings || n.hasClass("start")) return;
        var p = n.position(), dx = p.x - cx, dy = p.y - cy0;
        if (Math.abs(dx) > Math.abs(dy) * 0.6) n.addClass(dx < 0 ? "lab-left" : "lab-right");
        else if (dy < 0) n.addClass("lab-top");
      });
      var turn = ++placing;
      requestAnimationFrame(function () {
        requestAnimationFrame(function () { if (turn === placing) cull(shown, refit); });
      });
    }

    // cull hides the labels that would overlap; refit then fits the drawing with the labels kept, which
    // scales them all alike and so keeps them apart.
    function cull(shown, refit) {
      var circles = shown.map(function (n) { return { id: n.id(), b: n.boundingBox({ includeLabels: false }) }; });
      var order = shown.toArray().sort(function (a, b) {
        return (+b.hasClass("start") - +a.hasClass("start")) || (b.degree(false) - a.degree(false)) ||
          (a.data("name").length - b.data("name").length);
      });
      var kept = [];
      order.forEach(function (n) {
        var b = n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
        var hit = kept.some(function (k) { return overlaps(k, b, 2); }) ||
          circles.some(function (c) { return c.id !== n.id() && overlaps(c.b, b, 0); });
        if (hit) n.addClass("nolabel");
        else kept.push(b);
      });
      if (refit) fitView();
      el.dataset.labelled = String(kept.length);
    }

    function showMessage(text) {
      var panel = document.getElementById("graph-detail");
      if (!panel) return;
      var p = document.createElement("p");
      p.className = "notice bad";
      p.textContent = text;
      panel.replaceChildren(p);
    }

    function buildFilter() {
      var box = document.getElementById("graph-filter");
      if (!box) return;
      var types = {};
      cy.nodes().forEach(function (n) { types[n.data("type")] = true; });
      var names = Object.keys(types).sort();
      var legend = box.querySelector("legend");
      box.replaceChildren(legend);
      names.forEach(function (t) {
        var label = document.createElement("label");
        var input = document.createElement("input");
        input.type = "checkbox";
        input.checked = !hidden[t];
        input.addEventListener("change", function () { hidden[t] = !input.checked; applyFilter(); });
        var swatch = document.createElement("span");
        swatch.textContent = "●";
        swatch.setAttribute("aria-hidden", "true");
        swatch.style.color = colour(t); // CSSOM, which the CSP allows, unlike style attributes in markup
        label.append(input, swatch, document.createTextNode(t));
        box.append(label);
      });
      box.hidden = names.length < 2;
    }

    function applyFilter() {
      cy.nodes().forEach(function (n) { n.toggleClass("filtered", !!hidden[n.data("type")]); });
      placeLabels(false);
    }

    function expand(key) {
      load([key]).then(function () {
        var n = cy.getElementById(key);
        if (n.nonempty()) cy.animate({ center: { eles: n } }, { duration: 200 });
      });
    }

    cy.on("tap", "node", function (ev) {
      htmx.ajax("GET", "/graph/entity?key=" + encodeURIComponent(ev.target.id()), { target: "#graph-detail", swap: "innerHTML" });
    });
    cy.on("tap", "edge", function (ev) {
      var e = ev.target;
      htmx.ajax("GET", "/graph/relation?id=" + encodeURIComponent(e.id()) + "&source=" + encodeURIComponent(e.data("source")),
        { target: "#graph-detail", swap: "innerHTML" });
    });
    cy.on("dbltap", "node", function (ev) { expand(ev.target.id()); });
    cy.on("mouseover", "node", function (ev) { ev.target.addClass("hover"); });
    cy.on("mouseout", "node", function (ev) { ev.target.removeClass("hover"); });
    if (moreButton) moreButton.addEventListener("click", function () {
      moreButton.disabled = true;
      load(more.keys, "", more.limit + PAGE).then(function () { moreButton.disabled = false; });
    });
    document.addEventListener("click", function (ev) {
      var b = ev.target.closest && ev.target.closest("[data-expand]");
      if (b) expand(b.getAttribute("data-expand"));
    });
    var fit = document.getElementById("graph-fit");
    if (fit) fit.addEventListener("click", function () { cy.fit(undefined, 30); });

    window.hopwiseGraph = cy; // for the end-to-end tests
    if (start.length > 0) load(start, facts);
  }

  document.addEventListener("DOMContentLoaded", init);
})();
