// nonoforge's playable page: plain JavaScript, no libraries, no network.
// The puzzles are the JSON in #nf-data; progress is kept in localStorage and IndexedDB.
(function () {
  "use strict";
  var book = JSON.parse(document.getElementById("nf-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var board = $("board"), statusEl = $("status"), timerEl = $("timer");
  var cur = null, colour = 1, mode = "fill", cursor = 0, drag = null, afterDrag = null;

  // -- keeping progress ------------------------------------------------------------------------
  // Progress is kept twice: in localStorage, read synchronously so that the board is drawn with
  // it at once, and in IndexedDB. Chromium can hand a newly loaded document a localStorage that
  // is silently not connected to the browser's store: it reads as empty, and every write that
  // document makes is dropped (docs/export.md). IndexedDB is bound another way and keeps them, so
  // it is read once on load (restore) and wins wherever its record is newer. Every record carries
  // a stamp, "at"; the newest wins (a record without one, kept by an earlier page, counts as the
  // oldest). Nothing is written until restore is done, so a board drawn from an empty localStorage
  // cannot overwrite kept progress; the player's moves made before are then redone on top of the
  // record restore found (newest). Another tab's writes arrive by localStorage (get, "storage").
  // IndexedDB may never answer (another tab's upgrade or delete blocks it): after WAIT ms the
  // page gives up on it and keeps progress in localStorage only (data-restored="local").
  var DB = "nonoforge", OS = "progress", WAIT = 3000;
  var saved = {}, stamp = 0, db = null, restored = false, acted = false;
  var pending = {};  // puzzle number -> {undo, played}: moves made on it before restore, left

  function readLocal(k) { try { return JSON.parse(localStorage.getItem(k)); } catch (e) { return null; } }
  function writeLocal(k, v) { try { localStorage.setItem(k, JSON.stringify(v)); } catch (e) { /* full or off */ } }
  function at(v) { return v && typeof v.at === "number" ? v.at : 0; }

  function dbPut(k, v) {
    if (!db) return;  // not open yet (restore copies newer records over) or not available
    try {
      var tx = db.transaction(OS, "readwrite");
      tx.objectStore(OS).put(v, k);
      if (tx.commit) tx.commit();  // now, not at the end of the task: a reload may come next
    } catch (e) { /* closed or full */ }
  }

  var store = {
    get: function (k) {  // the newer of what this page knows and localStorage (another tab's)
      var v = readLocal(k), c = saved[k];
      if (typeof v === "number") v = { n: v };  // ":last" as earlier pages kept it: a bare number
      if (v && typeof v === "object" && (!c || at(v) > at(c))) {
        saved[k] = c = v;
        stamp = Math.max(stamp, at(v));
      }
      return c || null;
    },
    set: function (k, v) {
      if (!restored) return;
      stamp = Math.max(stamp + 1, Date.now());
      v.at = stamp;
      saved[k] = v;
      writeLocal(k, v);
      dbPut(k, v);
    }
  };

  function key(p) { return "nonoforge:" + book.id + ":" + p.key; }
  var lastKey = "nonoforge:" + book.id + ":last";

  // The solution, for "check" only: base64 of the cells XOR a keystream seeded by the key.
  function solution(p) {
    var raw = atob(p.sol), out = new Int8Array(raw.length), s = p.seed;
    for (var i = 0; i < raw.length; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      out[i] = raw.charCodeAt(i) ^ ((s >>> 16) & 255);
    }
    return out;
  }

  function fmt(t) {
    var m = Math.floor(t / 60), s = t % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function say(msg) { statusEl.textContent = msg; }

  // -- drawing ------------------------------------------------------------------------------

  function clueSpans(td, clue, p) {
    clue.forEach(function (b) {
      var sp = document.createElement("span");
      sp.textContent = b[0];
      if (!p.bw) { sp.style.background = p.colors[b[1]]; sp.style.color = p.ink[b[1]]; sp.className = "sw"; }
      td.appendChild(sp);
    });
    if (!clue.length) { var z = document.createElement("span"); z.textContent = "0"; td.appendChild(z); }
  }

  // The cell (px) that fits the puzzle, clues included, into the window below the tools: as
  // large as the window allows up to MAX_CELL, and never under MIN_CELL, whose clue digits
  // (0.6 of a cell) stay readable; a puzzle that needs smaller scrolls instead (a 45x41
  // puzzle's clues were once 7 px while half the window was empty: issue 37).
  var MIN_CELL = 18, MAX_CELL = 48;
  function fitCell(p) {
    var left = Math.max(1, Math.max.apply(null, p.rows.map(function (c) { return c.length; })));
    var top = Math.max(1, Math.max.apply(null, p.cols.map(function (c) { return c.length; })));
    var room = Math.max(200, window.innerHeight - board.getBoundingClientRect().top - 16);
    var wide = (document.documentElement.clientWidth || window.innerWidth) - 40;
    var px = Math.floor(Math.min(wide / (p.w + left + 0.5), room / (p.h + top), MAX_CELL)) - 1;
    board.style.setProperty("--cell", Math.max(MIN_CELL, px) + "px");
  }

  function build(p) {
    board.textContent = "";
    board.className = p.bw ? "bw" : "colour";
    fitCell(p);
    var tr = board.insertRow(), td = tr.insertCell();
    td.className = "corner";
    p.cols.forEach(function (clue, j) {
      var c = tr.insertCell(); c.className = "cc" + (j % 5 === 0 ? " l5" : ""); c.id = "cc" + j;
      clueSpans(c, clue, p);
    });
    p.rows.forEach(function (clue, i) {
      var r = board.insertRow(), rc = r.insertCell();
      rc.className = "rc" + (i % 5 === 0 ? " t5" : ""); rc.id = "rc" + i;
      clueSpans(rc, clue, p);
      for (var j = 0; j < p.w; j++) {
        var c = r.insertCell();
        c.className = "cell" + (j % 5 === 0 ? " l5" : "") + (i % 5 === 0 ? " t5" : "");
        c.dataset.i = i * p.w + j;
      }
    });
    p.givens.forEach(function (g) {  // printed solved: marked (a dot in contrasting ink, a black x)
      var c = board.rows[1 + g[0]].cells[1 + g[1]];
      c.classList.add("given");
      c.style.color = p.ink[g[2]];
      c.title = "given";
    });
  }

  // The given cells of a puzzle: cell index -> the value they hold (a colour, or -1: crossed).
  function givens(p) {
    var fixed = new Int8Array(p.w * p.h), value = {};
    p.givens.forEach(function (g) { var i = g[0] * p.w + g[1]; fixed[i] = 1; value[i] = g[2] || -1; });
    return { fixed: fixed, value: value };
  }

  function cellEl(i) { return board.rows[1 + Math.floor(i / cur.p.w)].cells[1 + i % cur.p.w]; }

  function paint(i) {
    var v = cur.cells[i], el = cellEl(i);
    el.style.background = v > 0 ? cur.p.colors[v] : "";
    el.classList.toggle("x", v < 0);
    el.classList.toggle("f", v > 0);
    el.classList.remove("wrong");
    if (el.dataset.hint === String(v)) el.classList.remove("hint");  // done as the hint said
  }

  function lineOk(vals, clue) {
    var runs = [], prev = 0;
    for (var k = 0; k < vals.length; k++) {
      var v = vals[k] > 0 ? vals[k] : 0;
      if (v && v === prev) runs[runs.length - 1][0]++;
      else if (v) runs.push([1, v]);
      prev = v;
    }
    if (runs.length !== clue.length) return false;
    for (var n = 0; n < runs.length; n++) {
      if (runs[n][0] !== clue[n][0] || runs[n][1] !== clue[n][1]) return false;
    }
    return true;
  }

  function rowVals(i) { return Array.prototype.slice.call(cur.cells, i * cur.p.w, (i + 1) * cur.p.w); }
  function colVals(j) { var o = []; for (var i = 0; i < cur.p.h; i++) o.push(cur.cells[i * cur.p.w + j]); return o; }

  function mark(i, j) {  // cross out satisfied clues of row i and column j; solved?
    if (i !== null) $("rc" + i).classList.toggle("done", lineOk(rowVals(i), cur.p.rows[i]));
    if (j !== null) $("cc" + j).classList.toggle("done", lineOk(colVals(j), cur.p.cols[j]));
  }

  function checkSolved() {
    var p = cur.p;
    for (var i = 0; i < p.h; i++) if (!lineOk(rowVals(i), p.rows[i])) return false;
    for (var j = 0; j < p.w; j++) if (!lineOk(colVals(j), p.cols[j])) return false;
    return true;
  }

  function showSolved() {
    board.dataset.solved = cur.solved ? "yes" : "no";
    document.body.classList.toggle("solved", cur.solved);
    if (cur.solved) say("Solved in " + fmt(cur.time) + "!");
    refreshPicker();
  }

  // -- changes, undo, redo --------------------------------------------------------------------

  function set(i, v, changes) {  // a given cell never changes: no move, undo or clear touches it
    if (cur.fixed[i] || cur.cells[i] === v) return;
    changes.push([i, cur.cells[i], v]);
    cur.cells[i] = v;
    paint(i);
    mark(Math.floor(i / cur.p.w), i % cur.p.w);
  }

  function commit(changes) {
    if (!changes.length) return;
    cur.undo.push(changes);
    cur.redo = [];
    after();
  }

  function after() {  // a move, an undo or a redo
    var was = cur.solved;
    acted = true;
    cur.solved = checkSolved();
    var hinting = board.querySelector("td.hint");  // a hint stays until its cells are done
    if (!hinting) clearHint();
    if (!was && !cur.solved && !hinting) say("");
    save();
    showSolved();
  }

  function replay(from, to, forward) {
    var changes = from.pop();
    if (!changes) return;
    for (var k = changes.length - 1; k >= 0 && !forward; k--) { cur.cells[changes[k][0]] = changes[k][1]; }
    for (var n = 0; n < changes.length && forward; n++) { cur.cells[changes[n][0]] = changes[n][2]; }
    changes.forEach(function (c) { paint(c[0]); mark(Math.floor(c[0] / cur.p.w), c[0] % cur.p.w); });
    to.push(changes);
    after();
  }

  function undo() { replay(cur.undo, cur.redo, false); }
  function redo() { replay(cur.redo, cur.undo, true); }

  function save() {  // only what changed since the board was drawn or last saved
    var v = { c: Array.prototype.join.call(cur.cells, ","), t: cur.time, s: cur.solved }, was = cur.from;
    if (!restored || (was.c === v.c && was.s === v.s && (was.t === v.t || was.blank))) return;
    cur.from = v;
    store.set(key(cur.p), v);
  }

  // -- choosing a puzzle ----------------------------------------------------------------------

  // Before restore nothing is kept, so the moves made on a puzzle the player leaves wait in
  // pending; when it is opened again (by restore's finish at the latest) they are redone on top
  // of the newest record and stay undoable (their redo stack is dropped: it was made against
  // another board). chosen: by the player (kept as the puzzle to open next time).
  function leave() {
    if (!restored && cur.undo.length) pending[cur.n] = { undo: cur.undo, played: cur.time - (cur.from.t || 0) };
  }

  function open(n, chosen) {
    if (cur) leave();
    var p = book.puzzles[n], mine = pending[n] || { undo: [], played: 0 };
    delete pending[n];
    var from = store.get(key(p)), kept = from || {};
    var cells = new Int8Array(p.w * p.h);
    if (kept.c) kept.c.split(",").forEach(function (v, i) { if (i < cells.length) cells[i] = +v || 0; });
    var given = givens(p);  // start solved, whatever a record says
    Object.keys(given.value).forEach(function (i) { cells[i] = given.value[i]; });
    // from: what the board is drawn from, the record or (none kept) the empty board, so that a
    // puzzle never played is not written, however long it was shown (save)
    from = from || { c: Array.prototype.join.call(cells, ","), t: 0, s: false, blank: true };
    mine.undo.forEach(function (ch) { ch.forEach(function (c) { c[1] = cells[c[0]]; cells[c[0]] = c[2]; }); });
    cur = { n: n, p: p, cells: cells, fixed: given.fixed, undo: mine.undo, redo: [], time: (kept.t || 0) + mine.played, solved: false, from: from };
    if (chosen) { acted = true; store.set(lastKey, { n: n }); }
    if (location.hash !== "#" + (n + 1)) {  // the puzzle's own link, #1, #2, ...
      try { history.replaceState(null, "", "#" + (n + 1)); } catch (e) { /* a file: URL may refuse */ }
    }
    $("pick").value = String(n);
    $("title").textContent = p.title;
    var ng = p.givens.length;
    $("info").textContent = p.w + "\u00d7" + p.h + (p.difficulty ? ", " + p.difficulty : p.grade ? ", grade " + p.grade : "") + (ng ? ", " + ng + (ng > 1 ? " cells" : " cell") + " given" : "") + (p.note ? " \u2014 " + p.note : "");
    build(p);
    buildPalette(p);
    for (var i = 0; i < cells.length; i++) paint(i);
    for (var r = 0; r < p.h; r++) mark(r, null);
    for (var c = 0; c < p.w; c++) mark(null, c);
    cursor = 0;
    moveCursor(0);
    cur.solved = checkSolved();
    say("");
    showSolved();
    timerEl.textContent = fmt(cur.time);
    if (mine.undo.length) save();
  }

  function stale() {  // a record of the puzzle shown newer than the board drawn or saved
    var v = store.get(key(cur.p));
    return v !== null && v !== cur.from;
  }

  function refreshPicker() {
    var sel = $("pick");
    book.puzzles.forEach(function (p, n) {
      var kept = n === (cur && cur.n) ? { s: cur.solved } : (store.get(key(p)) || {});
      sel.options[n].textContent = (n + 1) + ". " + p.title + " (" + p.w + "\u00d7" + p.h + ")" + (kept.s ? " \u2713" : "");
    });
  }

  function buildPalette(p) {
    var box = $("palette");
    box.textContent = "";
    colour = 1;
    p.colors.forEach(function (hex, c) {
      if (c === 0) return;
      var b = document.createElement("button");
      b.type = "button"; b.className = "swatch"; b.style.background = hex; b.style.color = p.ink[c];
      b.textContent = c <= 9 ? String(c) : "";
      b.title = p.names[c] + (c <= 9 ? " (key " + c + ")" : "");
      b.setAttribute("aria-label", "colour " + p.names[c]);
      b.addEventListener("click", function () { pickColour(c); });
      box.appendChild(b);
    });
    box.hidden = p.bw;
    pickColour(1);
  }

  function pickColour(c) {
    colour = c;
    Array.prototype.forEach.call($("palette").children, function (b, k) { b.setAttribute("aria-pressed", k + 1 === c ? "true" : "false"); });
    setMode("fill");
  }

  function setMode(m) {
    mode = m;
    $("mode").textContent = m === "fill" ? "Mode: fill" : "Mode: mark empty";
    $("mode").setAttribute("aria-pressed", m === "mark" ? "true" : "false");
  }

  // -- mouse, touch and keys ------------------------------------------------------------------

  function target(i, marking) {  // a drag begun on a given cell fills (or marks) the others
    var v = cur.fixed[i] ? 0 : cur.cells[i];
    if (marking) return v === -1 ? 0 : -1;
    return v === colour ? 0 : colour;
  }

  board.addEventListener("contextmenu", function (e) { e.preventDefault(); });
  board.addEventListener("pointerdown", function (e) {
    if (drag) endDrag();  // a drag still open (another finger, a lost pointerup): it ends here
    var el = e.target.closest ? e.target.closest("td.cell") : null;
    if (!el || cur.solved) return;
    e.preventDefault();
    var i = +el.dataset.i;
    drag = { v: target(i, e.button === 2 || mode === "mark"), changes: [] };
    cursor = i; moveCursor(0);
    set(i, drag.v, drag.changes);
  });
  document.addEventListener("pointermove", function (e) {
    if (!drag) return;
    var el = document.elementFromPoint(e.clientX, e.clientY);
    el = el && el.closest ? el.closest("td.cell") : null;
    if (el && board.contains(el)) set(+el.dataset.i, drag.v, drag.changes);
  });
  function endDrag() {
    var d = drag, then = afterDrag;
    drag = afterDrag = null;
    if (d) commit(d.changes);
    if (then) then();  // restore's finish, waiting for the drag to end
  }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", endDrag);

  function moveCursor(delta) {
    var old = board.querySelector("td.cur");
    if (old) old.classList.remove("cur");
    cursor = Math.max(0, Math.min(cur.p.w * cur.p.h - 1, cursor + delta));
    cellEl(cursor).classList.add("cur");
  }

  board.addEventListener("keydown", function (e) {
    if (!cur || e.altKey || e.metaKey) return;
    var w = cur.p.w, col = cursor % w, k = e.key;
    if (e.ctrlKey) {
      if (k === "z" || k === "Z") { e.shiftKey ? redo() : undo(); } else if (k === "y") { redo(); } else { return; }
      e.preventDefault(); return;
    }
    var moves = { ArrowLeft: col > 0 ? -1 : 0, ArrowRight: col < w - 1 ? 1 : 0, ArrowUp: -w, ArrowDown: w };
    if (k in moves) {
      moveCursor(cursor + moves[k] < 0 || cursor + moves[k] >= w * cur.p.h ? 0 : moves[k]);
    } else if (cur.solved) {
      return;
    } else if (k === " " || k === "Enter") {
      var ch = []; set(cursor, target(cursor, mode === "mark"), ch); commit(ch);
    } else if (k === "x" || k === "X" || k === ".") {
      var cx = []; set(cursor, target(cursor, true), cx); commit(cx);
    } else if (k === "Backspace" || k === "Delete" || k === "0") {
      var cd = []; set(cursor, 0, cd); commit(cd);
    } else if (/^[1-9]$/.test(k) && +k < cur.p.colors.length) {
      pickColour(+k);
    } else if (k === "h" || k === "H") {
      hint();
    } else if (k === "m" || k === "M") {
      setMode(mode === "fill" ? "mark" : "fill");
    } else {
      return;
    }
    e.preventDefault();
  });

  // -- hints: the next step, as a person would take it ------------------------------------------
  // The ladder of nonoforge/solver/human.py, in the same order and the same words: each rung
  // looks at one line's clue and known cells (masks: bit 0 empty, bit c colour c) and narrows
  // them; the hint is the first rung, over rows then columns, that decides a cell the player has
  // not. Every rung only decides what complete line logic on that line decides (a test compares
  // them with Python's on random lines), and the hint starts from the player's cells only after
  // they are checked against the solution, so a mistake is pointed out instead of built upon.
  // The line rungs and their order are the page's book.ladder (nonoforge/techniques.py, put in
  // the page by pipeline/html.py); a rung this script has no code for finds nothing.
  var RUNGS = (book.ladder || []).filter(function (r) { return !r.trial; }).map(function (r) { return r.name; });

  function single(m) { return m !== 0 && (m & (m - 1)) === 0; }
  function same(a, b) { for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false; return true; }

  // Each block's leftmost and rightmost start, honouring only cells that cannot take its colour.
  function ranges(masks, blocks) {
    var n = masks.length, k = blocks.length, left = [], right = [], pos = 0, j, s;
    function fits(j, s) { for (var i = s; i < s + blocks[j][0]; i++) if (!((masks[i] >> blocks[j][1]) & 1)) return false; return true; }
    for (j = 0; j < k; j++) {
      while (pos + blocks[j][0] <= n && !fits(j, pos)) pos++;
      if (pos + blocks[j][0] > n) return null;
      left.push(pos);
      pos += blocks[j][0] + (j + 1 < k && blocks[j + 1][1] === blocks[j][1] ? 1 : 0);
    }
    var end = n;
    for (j = k - 1; j >= 0; j--) {
      s = end - blocks[j][0];
      while (s >= 0 && !fits(j, s)) s--;
      if (s < 0) return null;
      right[j] = s;
      end = s - (j > 0 && blocks[j - 1][1] === blocks[j][1] ? 1 : 0);
    }
    for (j = 0; j < k; j++) if (left[j] > right[j]) return null;
    return [left, right];
  }

  function reach(n, blocks, left, right) {
    var out = [];
    for (var i = 0; i < n; i++) out.push(1);
    blocks.forEach(function (b, j) { for (var i = left[j]; i < right[j] + b[0]; i++) out[i] |= 1 << b[1]; });
    return out;
  }

  function pins(masks, blocks, left, right, onlyEnds) {  // forcing and glue
    var n = masks.length, k = blocks.length, lo = left.slice(), hi = right.slice(), pinned = false, j;
    for (var p = 0; p < n; p++) {
      var m = masks[p];
      if ((m & 1) || (m & (m - 1))) continue;
      var who = [];
      for (j = 0; j < k; j++) if (((m >> blocks[j][1]) & 1) && left[j] <= p && p < right[j] + blocks[j][0]) who.push(j);
      if (who.length !== 1) continue;
      j = who[0];
      if (onlyEnds && j !== 0 && j !== k - 1) continue;
      lo[j] = Math.max(lo[j], p - blocks[j][0] + 1); hi[j] = Math.min(hi[j], p);
      pinned = true;
    }
    if (!pinned) return null;
    for (j = 0; j < k; j++) if (lo[j] > hi[j]) return null;
    var out = reach(n, blocks, lo, hi);
    blocks.forEach(function (b, j) { for (var i = hi[j]; i < lo[j] + b[0]; i++) out[i] = 1 << b[1]; });
    return masks.map(function (m, i) { return m & out[i]; });
  }

  function colours(blocks) {
    var cs = [];
    blocks.forEach(function (b) { if (cs.indexOf(b[1]) < 0) cs.push(b[1]); });
    return cs.sort(function (a, b) { return a - b; });
  }

  function completing(masks, blocks) {
    var out = masks.slice();
    colours(blocks).forEach(function (c) {
      var need = 0, bit = 1 << c, known = 0, can = [];
      blocks.forEach(function (b) { if (b[1] === c) need += b[0]; });
      masks.forEach(function (m, i) { if (m === bit) known++; if (m & bit) can.push(i); });
      if (known === need) out = out.map(function (o) { return o !== bit ? o & ~bit : o; });
      else if (can.length === need) can.forEach(function (i) { out[i] = bit; });
    });
    return out;
  }

  // Complete line logic: each cell narrowed to what some placement of the blocks gives it; null
  // when none fits. F[j][i]: blocks before j fit in cells [0, i); B[j][i]: blocks from j in [i, n).
  function lineLogic(masks, blocks) {
    var n = masks.length, k = blocks.length, canbg = masks.map(function (m) { return (m & 1) !== 0; });
    var bad = {}, i, j, s;
    colours(blocks).forEach(function (c) {
      var acc = [0];
      for (var i = 0; i < n; i++) acc.push(acc[i] + ((masks[i] >> c) & 1 ? 0 : 1));
      bad[c] = acc;
    });
    function fits(j, s) { var a = bad[blocks[j][1]]; return s >= 0 && s + blocks[j][0] <= n && a[s + blocks[j][0]] === a[s]; }
    function gap(j) { return blocks[j][1] === blocks[j + 1][1]; }
    function grid(v) { var g = []; for (var j = 0; j <= k; j++) { g.push([]); for (var i = 0; i <= n; i++) g[j].push(v); } return g; }
    function leftOk(j, s) {
      if (j === 0) return F[0][s];
      return gap(j - 1) ? s >= 1 && canbg[s - 1] && F[j][s - 1] : F[j][s];
    }
    function rightOk(j, e) {
      if (j === k - 1) return B[k][e];
      return gap(j) ? e < n && canbg[e] && B[j + 1][e + 1] : B[j + 1][e];
    }
    var F = grid(false), B = grid(false);
    F[0][0] = true;
    for (i = 1; i <= n; i++) F[0][i] = F[0][i - 1] && canbg[i - 1];
    for (j = 1; j <= k; j++) {
      for (i = 1; i <= n; i++) {
        if (F[j][i - 1] && canbg[i - 1]) { F[j][i] = true; continue; }
        s = i - blocks[j - 1][0];
        if (s >= 0 && fits(j - 1, s)) F[j][i] = leftOk(j - 1, s);
      }
    }
    if (!F[k][n]) return null;
    B[k][n] = true;
    for (i = n - 1; i >= 0; i--) B[k][i] = B[k][i + 1] && canbg[i];
    for (j = k - 1; j >= 0; j--) {
      for (i = n - 1; i >= 0; i--) {
        if (B[j][i + 1] && canbg[i]) { B[j][i] = true; continue; }
        if (fits(j, i)) B[j][i] = rightOk(j, i + blocks[j][0]);
      }
    }
    var out = [];
    for (i = 0; i < n; i++) {
      out.push(0);
      for (j = 0; j <= k && canbg[i]; j++) if (F[j][i] && B[j][i + 1]) { out[i] = 1; break; }
    }
    for (j = 0; j < k; j++) {
      var cover = [], run = 0, ln = blocks[j][0];
      for (i = 0; i <= n; i++) cover.push(0);
      for (s = 0; s + ln <= n; s++) {
        if (fits(j, s) && leftOk(j, s) && rightOk(j, s + ln)) { cover[s]++; cover[s + ln]--; }
      }
      for (i = 0; i < n; i++) { run += cover[i]; if (run) out[i] |= 1 << blocks[j][1]; }
    }
    return out;
  }

  // One rung on one line: the narrowed masks (equal to masks when it finds nothing), or null.
  function rung(t, masks, blocks) {
    if (t === "line") return lineLogic(masks, blocks);
    if (t === "completing") return completing(masks, blocks);
    if (!blocks.length) return t === "simple_spaces" ? masks.map(function (m) { return m & 1; }) : null;
    var rr = ranges(masks, blocks);
    if (!rr) return null;
    var left = rr[0], right = rr[1], out;
    if (t === "simple_boxes") {
      out = masks.slice();
      blocks.forEach(function (b, j) { for (var i = right[j]; i < left[j] + b[0]; i++) out[i] &= 1 << b[1]; });
      return out;
    }
    if (t === "simple_spaces") {
      var r = reach(masks.length, blocks, left, right);
      return masks.map(function (m, i) { return m & r[i]; });
    }
    if (t === "forcing" || t === "glue") return pins(masks, blocks, left, right, t === "forcing");
    return null;
  }

  // -- the hint's sentence, in human.py's words -----------------------------------------------

  function colourWord(p, mask) {
    if (mask === 1) return "empty";
    var names = [], not = [];
    for (var c = 1; c < p.colors.length; c++) {
      if ((mask >> c) & 1) names.push(p.bw ? "filled" : p.names[c]); else not.push(p.names[c]);
    }
    if (single(mask)) return names[0];
    if (mask & 1) return "not " + not.join(" or ");
    return names.join(" or ");
  }

  function spans(idx) {
    var s = idx.slice().sort(function (a, b) { return a - b; }), parts = [], i = 0;
    while (i < s.length) {
      var j = i;
      while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
      parts.push(i === j ? String(s[i] + 1) : (s[i] + 1) + "-" + (s[j] + 1));
      i = j + 1;
    }
    var text = parts.length > 1 ? parts.slice(0, -1).join(", ") + " and " + parts[parts.length - 1] : parts[0];
    return (s.length === 1 ? "cell " : "cells ") + text;
  }

  function blockName(p, b) { return "the " + (p.bw ? "" : p.names[b[1]] + " ") + "block of " + b[0]; }

  function sentence(p, t, head, blocks, masks, out) {
    var changed = [], empties = [], filled = [];
    masks.forEach(function (m, j) { if (m !== out[j]) changed.push(j); });
    changed.forEach(function (j) { (out[j] === 1 ? empties : filled).push(j); });
    var clue = blocks.map(function (b) { return b[0]; }).join(" ") || "0";
    function result() {
      var bits = [], order = [], groups = {};
      filled.forEach(function (j) { if (!groups[out[j]]) { groups[out[j]] = []; order.push(out[j]); } groups[out[j]].push(j); });
      order.forEach(function (m) { bits.push(spans(groups[m]) + " " + colourWord(p, m)); });
      if (empties.length) bits.push(spans(empties) + " empty");
      return bits.join(" and ");
    }
    if (t === "simple_boxes") {
      var open = masks.filter(function (m) { return m & ~1; }).length;
      if (blocks.length === 1 && blocks[0][0] === open && filled.length === blocks[0][0]) {
        return head + ": " + blockName(p, blocks[0]) + " fills its " + blocks[0][0] + " cells.";
      }
      if (blocks.length === 1) {
        return head + ": " + blockName(p, blocks[0]) + " in " + masks.length + " cells must cover " + spans(filled) + " whichever way it sits.";
      }
      var rr = ranges(masks, blocks), parts = [];
      blocks.forEach(function (b, j) {
        var mine = rr ? filled.filter(function (i) { return rr[1][j] <= i && i < rr[0][j] + b[0]; }) : [];
        if (mine.length) parts.push(blockName(p, b) + " must cover " + spans(mine));
      });
      return head + ": sliding the blocks " + clue + " as far left and as far right as they go, " +
        (parts.length ? parts.join(" and ") : result()) + " whichever way they sit.";
    }
    if (t === "simple_spaces") {
      if (!blocks.length) return head + ": the clue is 0, so every cell is empty.";
      if (empties.length && !filled.length) return head + ": no block of " + clue + " can reach " + spans(empties) + ", so they are empty.";
      return head + ": no block of " + clue + " can reach there: " + result() + ".";
    }
    if (t === "forcing") return head + ": a filled cell near the edge can only belong to the first or last block of " + clue + ", which pins it: " + result() + ".";
    if (t === "glue") return head + ": filled cells that only one block of " + clue + " can reach belong to it, so it is joined up and cut short: " + result() + ".";
    if (t === "completing") {
      if (empties.length && !filled.length) return head + ": all blocks of " + clue + " are placed, so " + spans(empties) + " are empty.";
      return head + ": counting what " + clue + " needs against what is left: " + result() + ".";
    }
    return head + ": trying every way the blocks " + clue + " can sit in what is known, they all agree on " + result() + ".";
  }

  // -- the next step for the player's grid ----------------------------------------------------

  // The lines of a puzzle: rows, then columns, each its blocks ([length, colour]) and cells.
  function lines(p) {
    var out = [];
    p.rows.forEach(function (clue, i) {
      var cells = []; for (var j = 0; j < p.w; j++) cells.push(i * p.w + j);
      out.push({ head: "Row " + (i + 1), blocks: clue, cells: cells, clue: "rc" + i });
    });
    p.cols.forEach(function (clue, j) {
      var cells = []; for (var i = 0; i < p.h; i++) cells.push(i * p.w + j);
      out.push({ head: "Column " + (j + 1), blocks: clue, cells: cells, clue: "cc" + j });
    });
    return out;
  }

  // The next step from cells (0 unknown, -1 empty, c > 0 colour c): {wrong: [cell indices]},
  // {solved: true}, {line, technique, cells: [[index, value]], sentence, via} or {stuck: true}
  // ({stuck, budget}: the trials' work ran out). A trial step's line is where the trial fails,
  // via the line it started from (two_line). Only
  // cells a step decides are reported (a colour puzzle's "not red" has no place on the board);
  // when no rung decides one from the player's cells alone, colours ruled out line by line are
  // carried over to the crossing lines until one does.
  function nextStep(p, cells, sol) {
    var wrong = [], all = (1 << p.colors.length) - 1, i;
    for (i = 0; i < cells.length; i++) {
      if ((cells[i] > 0 && cells[i] !== sol[i]) || (cells[i] < 0 && sol[i] > 0)) wrong.push(i);
    }
    if (wrong.length) return { wrong: wrong };
    var masks = Array.prototype.map.call(cells, function (v) { return v > 0 ? 1 << v : v < 0 ? 1 : all; });
    if (masks.every(single)) return { solved: true };
    var ls = lines(p), carried = masks.slice(), t, n;
    function found(L, t, out, viaCrossing) {
      var got = out.map(function (o, j) { return single(o) && !single(masks[L.cells[j]]) ? o : masks[L.cells[j]]; });
      var before = L.cells.map(function (c) { return masks[c]; });
      if (same(got, before)) return null;
      var decided = [];
      got.forEach(function (m, j) { if (m !== before[j]) decided.push([L.cells[j], m === 1 ? -1 : 31 - Math.clz32(m)]); });
      var said = sentence(p, t, L.head, L.blocks, before, got);
      if (viaCrossing) said = said.replace(": trying", ": with the colours the crossing lines rule out, trying");
      return { line: L, technique: t, cells: decided, sentence: said };
    }
    for (t = 0; t < RUNGS.length; t++) {
      for (n = 0; n < ls.length; n++) {
        var have = ls[n].cells.map(function (c) { return masks[c]; }), out = rung(RUNGS[t], have, ls[n].blocks);
        var step = out && found(ls[n], RUNGS[t], out, false);
        if (step) return step;
      }
    }
    for (var changed = true; changed;) {  // colour puzzles: narrowing that decides nothing yet
      changed = false;
      for (n = 0; n < ls.length; n++) {
        var mine = ls[n].cells.map(function (c) { return carried[c]; }), o = lineLogic(mine, ls[n].blocks);
        if (!o) return { stuck: true };
        var st = found(ls[n], "line", o, true);
        if (st) return st;
        o.forEach(function (m, j) { if (m !== mine[j]) { carried[ls[n].cells[j]] = m; changed = true; } });
      }
    }
    return trialStep(p, ls, carried);
  }

  // -- trials: a colour tried in one cell and followed through the lines ------------------------
  // human.py's two top rungs, in its order and words, on a grid line deduction has finished:
  // two_line works the trial through one line of the cell, the lines crossing it, and a line
  // parallel to it; contradiction through the whole grid. The first trial that fails decides
  // the cell (in a colour puzzle only a trial that leaves one colour is a hint). Each hint may
  // spend at most TRIAL_LINES line solves: a count, not a clock.
  var TRIAL_LINES = 20000;

  function numeric(a, b) { return a - b; }

  function clueText(blocks) { return blocks.map(function (b) { return b[0]; }).join(" ") || "0"; }

  // Line li with the cells changes (position -> mask) narrowed: what line logic narrows
  // further (position -> mask), or null when the line breaks.
  function solveWith(ls, masks, li, changes, work) {
    work.lines++;
    var have = ls[li].cells.map(function (c) { return masks[c]; }), got = {};
    Object.keys(changes).forEach(function (j) { have[+j] = changes[j]; });
    var out = lineLogic(have, ls[li].blocks);
    if (!out) return null;
    out.forEach(function (o, j) { if (o !== have[j]) got[j] = o; });
    return got;
  }

  function pairTrial(p, ls, masks, r, c, k, first, work) {
    var h = p.h, isRow = first < h, pos = isRow ? c : r, at = isRow ? first : first - h, j, i;
    var decided = {};
    decided[pos] = 1 << k;
    var got = solveWith(ls, masks, first, decided, work);
    if (!got) return { fails: first };
    for (j in got) decided[j] = got[j];
    var carried = {}, keys = Object.keys(decided).map(Number).sort(numeric);
    for (var n = 0; n < keys.length; n++) {
      var cross = isRow ? h + keys[n] : keys[n], one = {};
      one[at] = decided[keys[n]];
      var more = solveWith(ls, masks, cross, one, work);
      if (!more) return { fails: cross };
      for (i in more) {
        var li = isRow ? +i : h + +i;
        (carried[li] = carried[li] || {})[keys[n]] = more[i];
      }
    }
    var par = Object.keys(carried).map(Number).sort(numeric);
    for (n = 0; n < par.length; n++) {
      if (par[n] === first || Object.keys(carried[par[n]]).length < 2) continue;
      if (!solveWith(ls, masks, par[n], carried[par[n]], work)) {
        return { fails: par[n], decided: decided, carried: carried[par[n]] };
      }
    }
    return null;
  }

  // Line deduction over the grid from the lines start, lowest line first, as human.py's
  // _propagate: the line that breaks, -1 for none.
  function propagate(ls, h, trial, start, work) {
    var dirty = start.slice(), queued = {};
    start.forEach(function (x) { queued[x] = true; });
    while (dirty.length) {
      if (work.lines > TRIAL_LINES) return -2;
      dirty.sort(numeric);
      var li = dirty.shift(), got = solveWith(ls, trial, li, {}, work);
      delete queued[li];
      if (!got) return li;
      for (var j in got) {
        trial[ls[li].cells[+j]] = got[j];
        var x = li < h ? h + +j : +j;
        if (!queued[x]) { queued[x] = true; dirty.push(x); }
      }
    }
    return -1;
  }

  // The cells of line li among cells (line position -> mask), as human.py's _cells_text.
  function cellsText(p, groupsOf) {
    var groups = {}, order = [];
    Object.keys(groupsOf).map(Number).sort(numeric).forEach(function (j) {
      var m = groupsOf[j];
      if (!groups[m]) { groups[m] = []; order.push(m); }
      groups[m].push(j);
    });
    return order.map(function (m) { return spans(groups[m]) + " " + colourWord(p, m); }).join(" and ") || "nothing new";
  }

  function pairSentence(p, ls, r, c, k, after, first, hit) {
    var kind = function (li) { return li < p.h ? "row" : "column"; };
    var num = function (li) { return li < p.h ? li + 1 : li - p.h + 1; };
    var k1 = kind(first), k2 = kind(hit.fails), cap = k1.charAt(0).toUpperCase() + k1.slice(1);
    var both = k1 === k2 ? cap + "s " + num(first) + " and " + num(hit.fails)
                         : cap + " " + num(first) + " and " + k2 + " " + num(hit.fails);
    var head = both + " together: if the cell at row " + (r + 1) + ", column " + (c + 1) + " were " + colourWord(p, 1 << k) + ", ";
    var clue = clueText(ls[hit.fails].blocks), rest = colourWord(p, after);
    if (hit.fails === first || !hit.carried) return head + k2 + " " + num(hit.fails) + " could not hold its clue " + clue + "; so it is " + rest + ".";
    var others = {}, own = first < p.h ? c : r;
    for (var j in hit.decided) if (+j !== own) others[j] = hit.decided[j];
    return head + k1 + " " + num(first) + " would need " + cellsText(p, others) + "; the " + (k1 === "row" ? "columns" : "rows") +
      " through them then give " + k2 + " " + num(hit.fails) + " " + cellsText(p, hit.carried) + ", which its clue " + clue +
      " cannot hold; so it is " + rest + ".";
  }

  // Each colour of each undecided cell, reading order: fn(r, c, m, k) returns a step or null.
  function eachTrial(p, masks, fn) {
    for (var x = 0; x < masks.length; x++) {
      var m = masks[x];
      if (single(m)) continue;
      for (var k = 0; (m >> k) > 0; k++) {
        if (!((m >> k) & 1)) continue;
        var got = fn(Math.floor(x / p.w), x % p.w, m, k);
        if (got) return got;
      }
    }
    return null;
  }

  function trialStep(p, ls, masks) {
    var work = { lines: 0 }, over = { stuck: true, budget: true };
    function decided(r, c, m, k, t, fails, said, via) {
      var after = m & ~(1 << k);
      if (!single(after)) return null;  // a colour ruled out, several left: no hint on the board
      return { line: ls[fails], technique: t, cells: [[r * p.w + c, after === 1 ? -1 : 31 - Math.clz32(after)]],
               sentence: said, via: via === undefined ? null : ls[via] };
    }
    var step = eachTrial(p, masks, function (r, c, m, k) {
      var firsts = [r, p.h + c];
      for (var f = 0; f < 2; f++) {
        if (work.lines > TRIAL_LINES) return over;
        var hit = pairTrial(p, ls, masks, r, c, k, firsts[f], work);
        if (hit) {
          return decided(r, c, m, k, "two_line", hit.fails,
                         pairSentence(p, ls, r, c, k, m & ~(1 << k), firsts[f], hit), firsts[f]);
        }
      }
      return null;
    }) || eachTrial(p, masks, function (r, c, m, k) {
      var trial = masks.slice();
      trial[r * p.w + c] = 1 << k;
      var hit = propagate(ls, p.h, trial, [r, p.h + c], work);
      if (hit === -2) return over;
      if (hit < 0) return null;
      var where = (hit < p.h ? "row " + (hit + 1) : "column " + (hit - p.h + 1));
      return decided(r, c, m, k, "contradiction", hit, "Cell at row " + (r + 1) + ", column " + (c + 1) +
                     ": if it were " + colourWord(p, 1 << k) + ", line deduction would break " + where +
                     " (clue " + clueText(ls[hit].blocks) + "), so it is " + colourWord(p, m & ~(1 << k)) + ".");
    });
    return step || { stuck: true };
  }

  function clearHint() {
    Array.prototype.forEach.call(board.querySelectorAll(".hint, .hline, .hclue"), function (el) {
      el.classList.remove("hint", "hline", "hclue");
      delete el.dataset.hint;
    });
  }

  function hint() {
    clearHint();
    if (cur.solved) { say("Solved already."); return; }
    if (cur.p.colors.length > 31) { say("Hints are not available for puzzles of more than 30 colours."); return; }
    var st = nextStep(cur.p, cur.cells, solution(cur.p));
    if (st.wrong) {
      var w = st.wrong[0], el = cellEl(w), r = Math.floor(w / cur.p.w) + 1, c = w % cur.p.w + 1;
      el.classList.add("wrong", "hint");
      el.dataset.hint = "0";
      say((st.wrong.length > 1 ? st.wrong.length + " cells are wrong; the first is" : "A cell is wrong:") +
          " row " + r + ", column " + c + " (marked in red). Clear it first.");
    } else if (st.solved) {
      say("Every cell is decided.");
    } else if (st.budget) {
      say("No hint within the work a hint may take: the next step needs a long trial.");
    } else if (st.stuck) {
      say("No line, and no cell tried and followed through the lines, tells more from here: the next step needs guessing.");
    } else {
      // a trial step frames the line where the trial fails (and the line it started from)
      [st.line, st.via].forEach(function (L) {
        if (!L) return;
        L.cells.forEach(function (i) { cellEl(i).classList.add("hline"); });
        $(L.clue).classList.add("hclue");
      });
      st.cells.forEach(function (d) { var el = cellEl(d[0]); el.classList.add("hint"); el.dataset.hint = String(d[1]); });
      say("Hint \u2014 " + st.sentence);
    }
  }
  window.nonoforge = { rung: rung, nextStep: nextStep };  // for tests: the same code the hint runs

  // -- buttons, timer -------------------------------------------------------------------------

  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("mode").addEventListener("click", function () { setMode(mode === "fill" ? "mark" : "fill"); });
  $("check").addEventListener("click", function () {
    var sol = solution(cur.p), wrong = 0;
    for (var i = 0; i < sol.length; i++) {
      var v = cur.cells[i];
      if ((v > 0 && v !== sol[i]) || (v < 0 && sol[i] > 0)) { cellEl(i).classList.add("wrong"); wrong++; }
    }
    if (cur.solved) return;
    say(wrong ? wrong + " mistake" + (wrong > 1 ? "s" : "") + " (marked in red)" : "No mistakes so far.");
  });
  $("hint").addEventListener("click", hint);
  $("reset").addEventListener("click", function () {
    var ch = [];
    for (var i = 0; i < cur.cells.length; i++) set(i, 0, ch);
    commit(ch);
  });
  $("prev").addEventListener("click", function () { open((cur.n + book.puzzles.length - 1) % book.puzzles.length, true); });
  $("next").addEventListener("click", function () { open((cur.n + 1) % book.puzzles.length, true); });
  $("pick").addEventListener("change", function (e) { open(+e.target.value, true); });

  setInterval(function () {
    if (!cur || cur.solved || document.hidden) return;
    cur.time++;
    timerEl.textContent = fmt(cur.time);
    if (cur.time % 5 === 0) save();
  }, 1000);
  // the time played since the last save, when the tab is closed or the page left
  window.addEventListener("pagehide", function () { if (cur) save(); });
  // another tab kept a newer board of the puzzle shown here: show it (after a drag, ours is newer)
  window.addEventListener("storage", function (e) {
    if (!cur || !restored || drag) return;
    if (e.key === key(cur.p) && stale()) open(cur.n);
    else refreshPicker();
  });

  book.puzzles.forEach(function (p, n) {
    var o = document.createElement("option");
    o.value = String(n);
    $("pick").appendChild(o);
  });
  function lastOpen() {
    var last = store.get(lastKey), n = last && last.n;
    return typeof n === "number" && n >= 0 && n < book.puzzles.length ? n : 0;
  }
  // A link to one puzzle, "#n" (from 1, as the book numbers them): the puzzle it names, or
  // -1 when the address names none.
  function linked() {
    var m = /^#(\d+)$/.exec(location.hash), n = m ? +m[1] - 1 : -1;
    return n >= 0 && n < book.puzzles.length ? n : -1;
  }
  window.addEventListener("hashchange", function () {
    var n = linked();
    if (n >= 0 && (!cur || n !== cur.n)) open(n, true);
  });
  window.addEventListener("resize", function () { if (cur) fitCell(cur.p); });

  // Read IndexedDB once; take its records where newer, copy ours over where they are newer.
  // When it is read the board says so: data-restored="yes"; where IndexedDB is unavailable,
  // fails, or its open does not answer within WAIT ms: data-restored="local", and the page keeps
  // progress in localStorage only. The wait guards the open only (a blocked or queued open
  // never answers); a transaction, once open, waits for other tabs' transactions and ends.
  function restore() {
    var keys = book.puzzles.map(key).concat([lastKey]), rq, timer, over = false;
    function fail() {
      if (over) return;
      over = true;
      clearTimeout(timer);
      try { rq.result.close(); } catch (e) { /* no connection */ }
      finish("local");
    }
    try { rq = indexedDB.open(DB, 1); } catch (e) { fail(); return; }
    timer = setTimeout(fail, WAIT);
    rq.onupgradeneeded = function () { rq.result.createObjectStore(OS); };
    rq.onerror = rq.onblocked = fail;
    rq.onsuccess = function () {
      // Too late: the page has drawn and maybe saved without it. Its records are not merged
      // (that would need restore's care over moves made since) and ours are not written over
      // them (theirs may be newer): the connection is closed, the next load reads it.
      if (over) { rq.result.close(); return; }
      clearTimeout(timer);
      var gets;
      try {
        var os = rq.result.transaction(OS, "readonly").objectStore(OS);
        gets = keys.map(function (k) { return os.get(k); });
        os.transaction.oncomplete = merge;
        os.transaction.onerror = os.transaction.onabort = fail;
      } catch (e) { fail(); return; }
      function merge() {
        over = true;
        db = rq.result;
        db.onversionchange = function () { db.close(); db = null; };  // let a newer page upgrade
        keys.forEach(function (k, i) {
          var theirs = gets[i].result, ours = store.get(k);
          if (theirs && (!ours || at(theirs) > at(ours))) {
            saved[k] = theirs;
            stamp = Math.max(stamp, at(theirs));
            writeLocal(k, theirs);
          } else if (ours && (!theirs || at(ours) > at(theirs))) {  // also records of earlier pages
            dbPut(k, ours);
          }
        });
        finish("yes");
      }
    };
  }

  // Draw what restore found: the puzzle last opened, unless the player has chosen or moved
  // (they stay where they are); the open puzzle from the newest record, with their moves on
  // top; every puzzle they left with moves is redone the same way and saved. Not in the middle
  // of a drag (its changes would land on another board): at its end.
  function finish(how) {
    board.dataset.restored = how;
    if (drag) { afterDrag = function () { finish(how); }; return; }
    leave();
    restored = true;
    var n = acted ? cur.n : lastOpen();
    Object.keys(pending).forEach(function (m) { if (+m !== n) open(+m); });
    if (n !== cur.n || pending[n] || stale()) open(n);
    if (lastOpen() !== cur.n) store.set(lastKey, { n: cur.n });
    refreshPicker();
  }

  if (linked() >= 0) open(linked(), true);  // a link names the puzzle: it wins over the last
  else open(lastOpen());
  board.focus({ preventScroll: true });  // the title and tools stay in view
  restore();
})();
