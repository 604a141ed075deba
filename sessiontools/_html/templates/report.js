(function () {
  "use strict";
  // Every span's facts: st-facts holds {k: shapes (lists of attribute keys, each a type
  // letter, ":", the key), s: strings, f: one record per mark, in the order of the marks}.
  // A record is [name, start (ns after its run started), duration (ns), status message
  // (-1: unset), cost (null: none), 0 exact / 1 at least / 2 unknown, shape, then a value
  // for each key of the shape] (sessiontools/_html/render.py, _Facts).
  // Everything from the log is set with textContent: never parsed as HTML.
  var data = JSON.parse(document.getElementById("st-facts").textContent);
  var K = data.k, S = data.s, F = data.f;
  var tip = document.getElementById("st-tip");
  var pinned = null;
  var ZOOMS = [1, 2, 4, 8, 16, 32, 64];

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

  function money(usd, flag) {
    if (flag === 2) return "unknown (unpriced)";
    var text = usd === 0 ? "$0" : "$" + (usd >= 1 ? usd.toFixed(2) : usd >= 0.01 ? usd.toFixed(4) : usd.toFixed(6));
    return (flag === 1 ? "at least " : "") + text;
  }

  function record(mark) {
    var svg = mark.ownerSVGElement;
    if (!svg.stMarks) svg.stMarks = Array.prototype.slice.call(svg.querySelectorAll("[data-span-id]"));
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
    tip.textContent = "";
    var head = document.createElement("strong");
    head.textContent = S[r[0]];
    tip.appendChild(head);
    var table = document.createElement("table");
    var error = r[3] >= 0;
    add(table, "status", error ? "ERROR" + (S[r[3]] ? ": " + S[r[3]] : "") : "OK (unset)", error ? "status-error" : "");
    add(table, "duration", duration(r[2]));
    add(table, "start", "+" + duration(r[1]) + " into the run");
    if (r[4] !== null) add(table, "cost", money(r[4], r[5]));
    add(table, "span id", mark.getAttribute("data-span-id"));
    add(table, "span kind", mark.getAttribute("data-span-kind"));
    var keys = K[r[6]];
    for (var i = 0; i < keys.length; i++) {
      add(table, keys[i].slice(2), show(r[7 + i], keys[i].charAt(0)));
    }
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
