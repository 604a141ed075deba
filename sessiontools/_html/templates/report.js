(function () {
  "use strict";
  // Every span's facts: st-facts holds {k: shapes, s: strings, f: one record per mark, in the
  // order of the marks}. A shape lists a span's attribute keys, each a type letter, ":" and
  // the key: s a string (its value a string index), i an integer, b a bool (0/1), a an array
  // of strings (string indexes); and, with no value in the record, o the operation name (the
  // mark's data-span-kind) and c the conversation id (its drawing's data-c); !:status, first,
  // for a span whose status is ERROR (its value the message's string index). A record is
  // [shape, name, start (ns after its run started), duration (ns), cost, values...]; cost is
  // null (none), US dollars, [US dollars] (at least) or "?" (unknown)
  // (sessiontools/_html/render.py, _Facts).
  // Everything from the log is set with textContent: never parsed as HTML.
  var data = JSON.parse(document.getElementById("st-facts").textContent);
  var K = data.k, S = data.s, F = data.f;
  var tip = document.getElementById("st-tip");
  var pinned = null;
  var ZOOMS = [1, 2, 4, 8, 16, 32, 64];

  function percent(fraction) {
    return +(Math.min(Math.max(fraction, 0), 1) * 100).toFixed(4) + "%";
  }

  // Each run's marks, placed in time: x and width from their facts' start and duration, as
  // fractions of the run's time axis (data-l ns long, starting data-o ns after the run).
  function draw(svg) {
    var base = Number(svg.getAttribute("data-f"));
    var length = Number(svg.getAttribute("data-l"));
    var origin = Number(svg.getAttribute("data-o") || 0);
    var marks = svg.querySelectorAll("[data-span-id]");
    svg.stMarks = Array.prototype.slice.call(marks);
    for (var i = 0; i < marks.length; i++) {
      var r = F[base + i];
      var x = length ? (r[2] - origin) / length : 0;
      if (x > 0) marks[i].setAttribute("x", percent(x));
      marks[i].setAttribute("width", percent(length ? r[3] / length : 1));
    }
  }

  var drawings = document.querySelectorAll("svg.tl-svg");
  for (var d = 0; d < drawings.length; d++) draw(drawings[d]);

  // Each session's timeline gets its zoom buttons (they need this script: made here).
  function button(direction, label, text) {
    var b = document.createElement("button");
    b.type = "button";
    b.setAttribute("data-zoom", direction);
    b.setAttribute("aria-label", label);
    b.textContent = text;
    return b;
  }
  var heads = document.querySelectorAll("[data-zoom-box] > h3");
  for (var h = 0; h < heads.length; h++) {
    var zoomer = document.createElement("span");
    zoomer.className = "zoom";
    zoomer.appendChild(button("out", "Zoom out", "\u2212"));
    zoomer.appendChild(document.createElement("output")).textContent = "1\u00d7";
    zoomer.appendChild(button("in", "Zoom in", "+"));
    heads[h].appendChild(document.createTextNode(" "));
    heads[h].appendChild(zoomer);
  }

  function duration(ns) {
    if (ns === 0) return "0";
    var sign = ns < 0 ? "-" : "";
    ns = Math.abs(ns);
    if (ns < 1e3) return sign + ns + " ns";
    if (ns < 1e6) return sign + (ns / 1e3).toPrecision(3) * 1 + " \u00b5s";
    if (ns < 1e9) return sign + (ns / 1e6).toPrecision(4) * 1 + " ms";
    var s = ns / 1e9;
    if (s < 60) return sign + s.toPrecision(4) * 1 + " s";
    var m = Math.floor(s / 60);
    return sign + m + " min " + Math.round(s - m * 60) + " s";
  }

  function usd(value) {
    if (value === 0) return "$0";
    var size = Math.abs(value);
    var text = size.toFixed(size >= 1 ? 2 : size >= 0.01 ? 4 : 6).split(".");
    text[0] = text[0].replace(/\B(?=(\d{3})+$)/g, ",");
    return (value < 0 ? "-" : "") + "$" + text.join(".");
  }

  function money(cost) {
    if (cost === "?") return "unknown (unpriced)";
    return Array.isArray(cost) ? "at least " + usd(cost[0]) : usd(cost);
  }

  function record(mark) {
    var svg = mark.ownerSVGElement;
    return F[Number(svg.getAttribute("data-f")) + svg.stMarks.indexOf(mark)];
  }

  function show(value, type) {
    if (type === "s") return S[value];
    if (type === "b") return value ? "true" : "false";
    if (type === "a") return value.length ? value.map(function (i) { return S[i]; }).join(", ") : "(none)";
    return String(value);
  }

  function add(table, key, value, cls) {
    var tr = document.createElement("tr");
    var th = document.createElement("th");
    var td = document.createElement("td");
    th.textContent = key;
    td.textContent = value;
    if (cls) td.className = cls;
    tr.appendChild(th);
    tr.appendChild(td);
    table.appendChild(tr);
  }

  function fill(mark) {
    var r = record(mark);
    var keys = K[r[0]];
    var at = 5;  // the record's next value
    var status = "OK (unset)";
    var error = false;
    var attributes = [];
    for (var i = 0; i < keys.length; i++) {
      var type = keys[i].charAt(0), key = keys[i].slice(2);
      if (type === "!") {
        error = true;
        var message = S[r[at++]];
        status = "ERROR" + (message ? ": " + message : "");
      } else if (type === "o") {
        attributes.push([key, mark.getAttribute("data-span-kind")]);
      } else if (type === "c") {
        attributes.push([key, S[Number(mark.ownerSVGElement.getAttribute("data-c"))]]);
      } else {
        attributes.push([key, show(r[at++], type)]);
      }
    }
    tip.textContent = "";
    var head = document.createElement("strong");
    head.textContent = S[r[1]];
    tip.appendChild(head);
    var table = document.createElement("table");
    add(table, "status", status, error ? "status-error" : "");
    add(table, "duration", duration(r[3]));
    add(table, "start", "+" + duration(r[2]) + " into the run");
    if (r[4] !== null) add(table, "cost", money(r[4]));
    add(table, "span id", mark.getAttribute("data-span-id"));
    add(table, "span kind", mark.getAttribute("data-span-kind"));
    for (var j = 0; j < attributes.length; j++) add(table, attributes[j][0], attributes[j][1]);
    tip.appendChild(table);
  }

  function place(x, y) {
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = x + 14, top = y + 14;
    if (left + w > window.innerWidth - 8) left = Math.max(8, x - w - 14);
    if (top + h > window.innerHeight - 8) top = Math.max(8, window.innerHeight - h - 8);
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  }

  function markOf(target) {
    return target && target.closest ? target.closest("[data-span-id]") : null;
  }

  function unpin() {
    if (pinned) pinned.classList.remove("sel");
    pinned = null;
    tip.classList.remove("pinned");
    tip.hidden = true;
  }

  function zoom(button) {
    var box = button.closest("[data-zoom-box]");
    var at = ZOOMS.indexOf(Number(box.getAttribute("data-zoom-box")));
    at = Math.max(0, Math.min(ZOOMS.length - 1, at + (button.getAttribute("data-zoom") === "in" ? 1 : -1)));
    box.classList.remove("z" + box.getAttribute("data-zoom-box"));
    box.setAttribute("data-zoom-box", String(ZOOMS[at]));
    box.classList.add("z" + ZOOMS[at]);
    box.querySelector(".zoom output").textContent = ZOOMS[at] + "\u00d7";
  }

  document.addEventListener("mouseover", function (e) {
    if (pinned) return;
    var mark = markOf(e.target);
    if (!mark) { tip.hidden = true; return; }
    fill(mark);
    tip.hidden = false;
    place(e.clientX, e.clientY);
  });

  document.addEventListener("mousemove", function (e) {
    if (!pinned && !tip.hidden) place(e.clientX, e.clientY);
  });

  document.addEventListener("click", function (e) {
    var button = e.target.closest ? e.target.closest("[data-zoom]") : null;
    if (button) { zoom(button); return; }
    var mark = markOf(e.target);
    if (mark) {
      if (pinned) pinned.classList.remove("sel");
      pinned = mark;
      mark.classList.add("sel");
      fill(mark);
      tip.hidden = false;
      tip.classList.add("pinned");
      place(e.clientX, e.clientY);
    } else if (pinned && !tip.contains(e.target)) {
      unpin();
    }
  });

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") unpin();
  });
})();
