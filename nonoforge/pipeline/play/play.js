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

  function build(p) {
    board.textContent = "";
    board.className = p.bw ? "bw" : "colour";
    var left = Math.max(1, Math.max.apply(null, p.rows.map(function (c) { return c.length; })));
    var top = Math.max(1, Math.max.apply(null, p.cols.map(function (c) { return c.length; })));
    var room = Math.max(200, window.innerHeight - board.getBoundingClientRect().top - 16);
    var px = Math.floor(Math.min((window.innerWidth - 40) / (p.w + left),
                                 room / (p.h + top), 29)) - 1;  // 1 px of border
    board.style.setProperty("--cell", Math.max(12, px) + "px");
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
    if (!was && !cur.solved) say("");
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
    $("pick").value = String(n);
    $("title").textContent = p.title;
    var ng = p.givens.length;
    $("info").textContent = p.w + "\u00d7" + p.h + (p.grade ? ", grade " + p.grade : "") + (ng ? ", " + ng + (ng > 1 ? " cells" : " cell") + " given" : "") + (p.note ? " \u2014 " + p.note : "");
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
    } else if (k === "m" || k === "M") {
      setMode(mode === "fill" ? "mark" : "fill");
    } else {
      return;
    }
    e.preventDefault();
  });

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

  open(lastOpen());
  board.focus();
  restore();
})();
