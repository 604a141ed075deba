(function () {
  "use strict";
  // A report of many sessions in one file holds their sections (with the facts) packed:
  // deflated and in base64, in st-packed (render.py, pack). They are unpacked here with the
  // browser's own DecompressionStream and put in the page, as HTML the report wrote (escaped as
  // every page's is: the log's text is text in it), where the placeholder (st-sessions) was;
  // then the timelines are drawn (start). A page of one session holds them as they are. When
  // the timelines are drawn, the page marks the time (performance.mark "st-drawn").
  var packed = document.getElementById("st-packed");
  if (!packed) {
    start();
    return;
  }
  var box = document.getElementById("st-sessions");
  function failed(why) {
    box.firstElementChild.textContent = "The sessions' sections could not be unpacked: " + why +
      ". sessiontools report --out DIR/ writes a page per session, which needs no unpacking.";
  }
  if (typeof DecompressionStream !== "function") {
    failed("this browser has no DecompressionStream");
    return;
  }
  var text = atob(packed.textContent), bytes = new Uint8Array(text.length);
  for (var b = 0; b < text.length; b++) bytes[b] = text.charCodeAt(b);
  new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate")))
    .text()
    .then(function (html) {
      packed.remove();
      box.insertAdjacentHTML("afterend", html);
      box.remove();
      start();
      toHash();
    }, function (e) { failed(String(e)); });

  // A link from elsewhere to a session or run (#s3, #s3-r1), now that it is in the page. The
  // sections and runs far from the window are laid out as they come near (content-visibility),
  // at their real heights instead of the estimates, which moves what is below them, frames
  // after the scroll: for a second, or until the reader scrolls, types or clicks, the target is
  // scrolled to again each frame it is not at the top of the window (or the page's end).
  function toHash() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    var target = id && document.getElementById(id);
    if (!target) return;
    var frames = 0, stopped = false;
    function stop() { stopped = true; }
    var events = ["wheel", "keydown", "mousedown", "touchstart"];
    events.forEach(function (name) { window.addEventListener(name, stop, {once: true, passive: true}); });
    function settle() {
      if (stopped) return;
      if (++frames > 60) {
        events.forEach(function (name) { window.removeEventListener(name, stop); });
        return;
      }
      var top = target.getBoundingClientRect().top;
      var end = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 1;
      if (Math.abs(top) > 1 && !(top > 0 && end)) {
        // a run inside a section not yet laid out: the section first, then the run
        var section = target.closest(".session");
        if (section && section !== target && Math.abs(section.getBoundingClientRect().top) > window.innerHeight) {
          section.scrollIntoView();
        } else {
          target.scrollIntoView();
        }
      }
      window.requestAnimationFrame(settle);
    }
    target.scrollIntoView();
    window.requestAnimationFrame(settle);
  }

  function start() {
    // Every span's facts: st-facts holds {k: shapes, s: strings, f: one record per mark, r: one
    // drawing per run (draw)}. A shape lists a span's attribute keys, each a type letter, ":" and
    // the key: s a string (its value a string index), i an integer, b a bool (0/1), a an array
    // of strings (string indexes); and, with no value in the record, o the operation name (the
    // mark's data-span-kind) and c the conversation id (its drawing's data-c); !:status, first,
    // for a span whose status is ERROR (its value the message's string index). A record is
    // [shape, name, start (ns after its run started), duration (ns), cost, place (its row and
    // classes: draw), values...]; cost is null (none), US dollars, [US dollars] (at least) or
    // "?" (unknown)
    // (sessiontools/_html/render.py, _Facts).
    // Everything from the log is set with textContent: never parsed as HTML.
    var data = JSON.parse(document.getElementById("st-facts").textContent);
    var K = data.k, S = data.s, F = data.f;
    var tip = document.getElementById("st-tip");
    var pinned = null;
    var ZOOMS = [1, 2, 4, 8, 16, 32, 64];
    var SVG = "http://www.w3.org/2000/svg";
    var KINDS = ["invoke_agent", "chat", "execute_tool", "chat"];  // a mark's, by its lane
    var CLASSES = ["", "e", "e y", "k", "dn", "rf", "rs", "e rs", "dn rs", "rf rs", "k rs"];

    function percent(fraction) {
      return +(Math.min(Math.max(fraction, 0), 1) * 100).toFixed(4) + "%";
    }

    // Each run's drawing, made here of its entry in data.r (one a run, in the order of the
    // runs' .tl-scroll boxes): [its first record, its time axis' length (ns), the axis' start
    // (ns after the run's), the conversation id (a string index), its height (px), the run's
    // number, its rows: lane, y (px), lane, y..., its records' span ids (8 bytes each, in one
    // base64 string)]. A row is a group: its lane's class colours its marks and sets their
    // height, its translation places them. Its records follow from the first (up to the next
    // run's first), each a mark, with data-span-kind (its lane's kind) and data-span-id (its
    // id in hex), on the row and with the classes its place says (the row's number times 16
    // plus the classes' number in CLASSES).
    // Each mark is placed in time: --x and --w (the style's x and width) from its start and
    // duration, as fractions of the run's time axis (data-l ns long, starting data-o ns after
    // the run). The style gives a mark at least a few pixels, centred on its time, whatever
    // the zoom: a call of no length can still be seen, hovered and clicked. Each mark is
    // reached with Tab too (tabindex), and shows its facts when it has the focus. Marks under
    // a hundredth of the run are drawn last in their row, over the longer ones (a failed call
    // of no length where its retry starts), so they can still be hovered.
    function draw(scroller, run, end) {
      var base = run[0], length = run[1], origin = run[2], rows = run[6];
      var svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("class", "tl-svg");
      svg.setAttribute("data-f", String(base));
      svg.setAttribute("data-l", String(length));
      if (origin) svg.setAttribute("data-o", String(origin));
      svg.setAttribute("data-c", String(run[3]));
      svg.setAttribute("height", String(run[4]));
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", "Timeline of run " + run[5]);
      svg.stAxis = String(run[4] - 4);  // the axis' labels' y
      var ids = atob(run[7]), groups = [], short = [];
      for (var g = 0; g < rows.length; g += 2) {
        var group = svg.appendChild(document.createElementNS(SVG, "g"));
        group.setAttribute("class", "L" + rows[g]);
        group.setAttribute("transform", "translate(0 " + rows[g + 1] + ")");
        groups.push(group);
        short.push([]);
      }
      for (var i = base; i < end; i++) {
        var r = F[i], row = Math.floor(r[5] / 16), cls = CLASSES[r[5] % 16];
        var mark = document.createElementNS(SVG, "rect");
        if (cls) mark.setAttribute("class", cls);
        mark.setAttribute("data-span-kind", KINDS[rows[2 * row]]);
        mark.setAttribute("data-span-id", hex(ids, 8 * (i - base)));
        mark.setAttribute("tabindex", "0");
        mark.stF = i;
        var x = length ? (r[2] - origin) / length : 0;
        var w = length ? r[3] / length : 1;
        if (x > 0) mark.style.setProperty("--x", percent(x));
        mark.style.setProperty("--w", percent(w));
        if (w < 0.01) short[row].push(mark);
        else groups[row].appendChild(mark);
      }
      for (var j = 0; j < groups.length; j++) {
        for (var k = 0; k < short[j].length; k++) groups[j].appendChild(short[j][k]);
      }
      if (length) axis(svg, 0, length, length);
      scroller.appendChild(svg);
    }

    function hex(bytes, at) {  // 8 bytes of a binary string from ``at``, in hex
      var out = "";
      for (var i = at; i < at + 8; i++) out += (bytes.charCodeAt(i) + 256).toString(16).slice(1);
      return out;
    }

    var R = data.r, scrollers = document.querySelectorAll(".tl-scroll");
    for (var d = 0; d < R.length && d < scrollers.length; d++) {
      draw(scrollers[d], R[d], d + 1 < R.length ? R[d + 1][0] : F.length);
    }

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
      return F[mark.stF];
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
      var at = 6;  // the record's next value
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

    // The time axis' ticks, in the part of the run in view: three or four round times (1, 2 or
    // 5 times a power of ten after the axis' start), a label near the view's right end ending
    // at its tick.
    function nice(value) {
      var power = Math.pow(10, Math.floor(Math.log10(Math.max(value, 1))));
      var steps = [1, 2, 5, 10];
      for (var i = 0; i < steps.length; i++) if (steps[i] * power >= value) return steps[i] * power;
      return 10 * power;
    }

    function tickLabel(ns) {  // as the page's durations (svg.format_duration): three digits
      if (ns === 0) return "0";
      if (ns < 1e3) return ns + " ns";
      if (ns < 1e6) return +(ns / 1e3).toPrecision(3) + " \u00b5s";
      if (ns < 1e9) return +(ns / 1e6).toPrecision(3) + " ms";
      var s = ns / 1e9;
      if (s < 60) return +s.toPrecision(3) + " s";
      var m = Math.floor(Math.round(s) / 60), sec = Math.round(s) % 60;
      if (m < 60) return m + " min" + (sec ? " " + sec + " s" : "");
      return Math.floor(m / 60) + " h" + (m % 60 ? " " + (m % 60) + " min" : "");
    }

    // A run's axis for the part of it in view: ``left`` px scrolled, ``view`` px wide, the
    // drawing ``zoomed`` times the view. Reads nothing of the layout: zooming draws a thousand
    // runs' axes at once, and reading a size between two changes makes the browser lay the
    // page out again each time.
    function ticks(svg, left, view, zoomed) {
      var length = Number(svg.getAttribute("data-l"));
      if (!length || !view) return;
      var from = Math.max(0, length * left / (view * zoomed));
      axis(svg, from, Math.min(length, from + length / zoomed), length);
    }

    // The axis' ticks from ``from`` to ``to`` ns of a run's axis ``length`` ns long, in place of
    // those drawn before.
    function axis(svg, from, to, length) {
      var old = svg.querySelectorAll(":scope > text");
      var first = svg.querySelector(":scope > g");
      for (var i = 0; i < old.length; i++) svg.removeChild(old[i]);
      var step = nice((to - from) / 4);
      for (var t = Math.max(step, Math.ceil(from / step) * step); t <= to; t += step) {
        var text = document.createElementNS(SVG, "text");
        text.setAttribute("x", percent(t / length));
        text.setAttribute("y", svg.stAxis);
        if (t - from > 0.9 * (to - from)) text.setAttribute("text-anchor", "end");
        text.textContent = tickLabel(t);
        svg.insertBefore(text, first);
      }
    }

    // Runs near the window (stNear): setting how far a run far from it is scrolled would make
    // the browser lay out what it skips (content-visibility), 2 ms a run; such a run gets its
    // scroll (stPending) as it comes near.
    var near = typeof IntersectionObserver === "function" ? new IntersectionObserver(function (entries) {
      for (var i = 0; i < entries.length; i++) {
        var scroller = entries[i].target;
        scroller.stNear = entries[i].isIntersecting;
        if (scroller.stNear && scroller.stPending) {
          scroller.stPending = false;
          // a mark reached with Tab has been scrolled into view already: it stays there
          if (!scroller.contains(document.activeElement)) scroller.scrollLeft = scroller.stLeft;
        }
      }
    }, {rootMargin: "100% 0px"}) : null;
    if (near) {
      var all = document.querySelectorAll(".tl-scroll");
      for (var n = 0; n < all.length; n++) near.observe(all[n]);
    }

    // Zooming widens every run's drawing of the session; each keeps the time at the middle of
    // its view there, and its axis is drawn again for what is in view. Every run's view is as
    // wide as the first's (the timeline's width); how far each is scrolled is kept as it
    // scrolls (stLeft), so nothing is read of the layout between the changes: first every
    // run's scroll is set, then every axis drawn.
    function zoom(button) {
      var box = button.closest("[data-zoom-box]");
      var was = Number(box.getAttribute("data-zoom-box"));
      var at = ZOOMS.indexOf(was);
      at = Math.max(0, Math.min(ZOOMS.length - 1, at + (button.getAttribute("data-zoom") === "in" ? 1 : -1)));
      var now = ZOOMS[at];
      if (now === was) return;
      var scrollers = box.querySelectorAll(".tl-scroll");
      if (!scrollers.length) return;
      var view = scrollers[0].clientWidth;
      box.classList.remove("z" + was);
      box.setAttribute("data-zoom-box", String(now));
      box.classList.add("z" + now);
      box.querySelector(".zoom output").textContent = now + "\u00d7";
      var lefts = [];
      for (var i = 0; i < scrollers.length; i++) {
        var left = ((scrollers[i].stLeft || 0) + view / 2) * now / was - view / 2;
        left = Math.max(0, Math.min(view * (now - 1), left));
        scrollers[i].stLeft = left;
        scrollers[i].stPending = !!near && !scrollers[i].stNear;
        if (!scrollers[i].stPending) scrollers[i].scrollLeft = left;
        lefts.push(left);
      }
      for (var j = 0; j < scrollers.length; j++) {
        var svg = scrollers[j].querySelector("svg.tl-svg");
        if (svg) ticks(svg, lefts[j], view, now);
      }
    }

    // Scrolling a zoomed run draws its axis again for what came into view (once a frame).
    var waiting = [];
    document.addEventListener("scroll", function (e) {
      var scroller = e.target;
      if (!scroller.classList || !scroller.classList.contains("tl-scroll")) return;
      if (waiting.indexOf(scroller) >= 0) return;
      waiting.push(scroller);
      if (waiting.length > 1) return;
      window.requestAnimationFrame(function () {
        var now = waiting;
        waiting = [];
        var sizes = now.map(function (s) { return [s.scrollLeft, s.clientWidth]; });
        for (var i = 0; i < now.length; i++) {
          var box = now[i].closest("[data-zoom-box]");
          var svg = now[i].querySelector("svg.tl-svg");
          now[i].stLeft = sizes[i][0];
          now[i].stPending = false;
          if (box && svg) ticks(svg, sizes[i][0], sizes[i][1], Number(box.getAttribute("data-zoom-box")));
        }
      });
    }, true);

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
        pin(mark, e.clientX, e.clientY);
      } else if (pinned && !tip.contains(e.target)) {
        unpin();
      }
    });

    function pin(mark, x, y) {
      if (pinned) pinned.classList.remove("sel");
      pinned = mark;
      mark.classList.add("sel");
      fill(mark);
      tip.hidden = false;
      tip.classList.add("pinned");
      place(x, y);
    }

    function corner(mark) {  // where the facts of a mark reached with the keyboard show
      var box = mark.getBoundingClientRect();
      return [box.left + box.width / 2, box.bottom];
    }

    // The keyboard: a mark with the focus shows its facts (Tab goes from mark to mark); Enter or
    // space keeps them, as a click; Escape lets go.
    document.addEventListener("focusin", function (e) {
      var mark = markOf(e.target);
      if (!mark || pinned) return;
      fill(mark);
      tip.hidden = false;
      var at = corner(mark);
      place(at[0], at[1]);
    });

    document.addEventListener("focusout", function (e) {
      if (!pinned && markOf(e.target)) tip.hidden = true;
    });

    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { unpin(); return; }
      var mark = markOf(e.target);
      if (mark && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        var at = corner(mark);
        pin(mark, at[0], at[1]);
      }
    });

    performance.mark("st-drawn");
  }
})();
