// nonoforge studio: the page. Everything the server sends is shown as text (textContent),
// never as markup; every change of the grid bumps a sequence number, and a check's answer
// is shown only if it is for the grid the page holds now.
"use strict";

const TOKEN = document.querySelector('meta[name="studio-token"]').content;
// this page load's id: the server stops a check once a newer one of the same page starts
const PAGE = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
const $ = (id) => document.getElementById(id);

// -- talking to the server ------------------------------------------------------------------

async function api(path, { method = "GET", json, body, signal, raw = false } = {}) {
  const headers = {};
  if (method !== "GET") headers["X-Studio-Token"] = TOKEN;
  if (json !== undefined) { headers["Content-Type"] = "application/json"; body = JSON.stringify(json); }
  const res = await fetch(path, { method, headers, body, signal, credentials: "same-origin" });
  if (!res.ok) {
    let msg = `${res.status} ${res.statusText}`;
    try { const e = await res.json(); if (e && e.error) msg = e.error; } catch (_) { /* not JSON */ }
    throw new Error(msg);
  }
  return raw ? res : res.json();
}

let toastTimer = null;
function toast(text, kind = "ok") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.textContent = ""; t.className = "toast"; }, kind === "error" ? 8000 : 3500);
}

// -- the document ---------------------------------------------------------------------------

const BW = [{ name: "white", hex: "#ffffff" }, { name: "black", hex: "#000000" }];
const doc = {
  w: 20, h: 20, cells: new Uint8Array(400), palette: BW.map((c) => ({ ...c })),
  title: "", author: "", provenance: null,
  // the given cells (indices y * w + x): revealed to the solver, showing the picture's colour
  givens: new Set(),
};
const state = {
  colour: 1, undo: [], redo: [], seq: 0, shownSeq: -1, check: null, controller: null,
  hover: null, edits: [],
};

function rowsOf(cells, w, h) {
  const out = [];
  for (let y = 0; y < h; y++) out.push(Array.from(cells.subarray(y * w, (y + 1) * w)));
  return out;
}

function givensJSON() {
  return [...doc.givens].sort((a, b) => a - b).map((i) => [Math.floor(i / doc.w), i % doc.w, doc.cells[i]]);
}

function documentJSON() {
  return { palette: doc.palette, cells: rowsOf(doc.cells, doc.w, doc.h), givens: givensJSON(), title: doc.title, author: doc.author };
}

function loadDocument(d, provenance = null) {
  doc.w = d.width; doc.h = d.height;
  doc.cells = new Uint8Array(d.cells.flat());
  doc.palette = d.palette.map((c) => ({ name: c.name, hex: c.hex }));
  doc.title = d.title || ""; doc.author = d.author || "";
  doc.givens = new Set((d.givens || []).filter(([y, x]) => y < doc.h && x < doc.w).map(([y, x]) => y * doc.w + x));
  doc.provenance = provenance;
  state.undo = []; state.redo = []; state.edits = [];
  state.colour = Math.min(1, doc.palette.length - 1);
  $("doc-title").value = doc.title;
  $("doc-author").value = doc.author;
  if (d.note) toast(d.note);
  renderPalette();
  changed();
}

// -- clues ----------------------------------------------------------------------------------

function clueOf(get, n) {
  const blocks = [];
  let prev = 0, run = 0;
  for (let i = 0; i < n; i++) {
    const v = get(i);
    if (v === prev) { if (v) run++; continue; }
    if (prev) blocks.push([run, prev]);
    prev = v; run = 1;
  }
  if (prev) blocks.push([run, prev]);
  return blocks;
}
const rowClue = (y) => clueOf((x) => doc.cells[y * doc.w + x], doc.w);
const colClue = (x) => clueOf((y) => doc.cells[y * doc.w + x], doc.h);

// -- drawing the board ----------------------------------------------------------------------

const board = $("board");
const geo = { cs: 20, left: 0, top: 0 };

function textOn(hex) {
  const n = parseInt(hex.slice(1), 16);
  const l = 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return l > 150 ? "#1d2330" : "#ffffff";
}

function layout() {
  const stage = $("stage");
  const showClues = $("show-clues").checked;
  const rc = [], cc = [];
  for (let y = 0; y < doc.h; y++) rc.push(rowClue(y));
  for (let x = 0; x < doc.w; x++) cc.push(colClue(x));
  const maxR = showClues ? Math.max(1, ...rc.map((c) => c.length)) : 0;
  const maxC = showClues ? Math.max(1, ...cc.map((c) => c.length)) : 0;
  const availW = Math.max(200, stage.clientWidth - 40);
  const availH = Math.max(200, stage.clientHeight - 70);
  const cs = Math.max(8, Math.min(32, Math.floor(Math.min(availW / (doc.w + maxR * 0.9), availH / (doc.h + maxC * 0.9)))));
  geo.cs = cs;
  geo.left = Math.ceil(maxR * cs * 0.9) + (showClues ? 6 : 0);
  geo.top = Math.ceil(maxC * cs * 0.9) + (showClues ? 6 : 0);
  return { rc, cc };
}

let hatch = null;
function hatchPattern(ctx) {
  if (hatch) return hatch;
  const c = document.createElement("canvas");
  c.width = c.height = 6;
  const g = c.getContext("2d");
  g.strokeStyle = "rgba(90, 100, 120, 0.55)";
  g.lineWidth = 1.2;
  g.beginPath(); g.moveTo(0, 6); g.lineTo(6, 0); g.moveTo(-1, 1); g.lineTo(1, -1); g.moveTo(5, 7); g.lineTo(7, 5); g.stroke();
  hatch = ctx.createPattern(c, "repeat");
  return hatch;
}

function drawClues(ctx, rc, cc) {
  const { cs, left, top } = geo;
  const bw = doc.palette.length === 2;
  const step = cs * 0.9;
  ctx.font = `${Math.max(8, Math.floor(cs * 0.52))}px system-ui, sans-serif`;
  ctx.textAlign = "center"; ctx.textBaseline = "middle";
  const one = (blocks, x0, y0, dx, dy, count) => {
    blocks.forEach(([len, col], i) => {
      const k = count - blocks.length + i;
      const cx = x0 + dx * k, cy = y0 + dy * k;
      if (!bw) {
        const hex = doc.palette[col].hex;
        ctx.fillStyle = hex;
        ctx.fillRect(cx - step / 2 + 1, cy - step / 2 + 1, step - 2, step - 2);
        ctx.fillStyle = textOn(hex);
      } else ctx.fillStyle = "#1d2330";
      ctx.fillText(String(len), cx, cy + 0.5);
    });
  };
  const maxR = Math.round((left - 6) / step), maxC = Math.round((top - 6) / step);
  rc.forEach((b, y) => {
    if (y % 2 === 1) { ctx.fillStyle = "#f6f7f9"; ctx.fillRect(0, top + y * cs, left - 3, cs); }
    one(b, step / 2, top + y * cs + cs / 2, step, 0, maxR);
  });
  cc.forEach((b, x) => {
    if (x % 2 === 1) { ctx.fillStyle = "#f6f7f9"; ctx.fillRect(left + x * cs, 0, cs, top - 3); }
    one(b, left + x * cs + cs / 2, step / 2, 0, step, maxC);
  });
}

function draw() {
  const { rc, cc } = layout();
  const { cs, left, top } = geo;
  const W = left + doc.w * cs + 1, H = top + doc.h * cs + 1;
  const dpr = window.devicePixelRatio || 1;
  board.width = Math.round(W * dpr); board.height = Math.round(H * dpr);
  board.style.width = `${W}px`; board.style.height = `${H}px`;
  const ctx = board.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, W, H);
  if ($("show-clues").checked) drawClues(ctx, rc, cc);
  for (let y = 0; y < doc.h; y++) {
    for (let x = 0; x < doc.w; x++) {
      const v = doc.cells[y * doc.w + x];
      ctx.fillStyle = doc.palette[v].hex;
      ctx.fillRect(left + x * cs, top + y * cs, cs, cs);
    }
  }
  const chk = state.shownSeq === state.seq ? state.check : null;
  // what is drawn, for tests and tools: the verdict shown and the cells marked
  board.dataset.left = String(left); board.dataset.top = String(top); board.dataset.cs = String(cs);
  board.dataset.verdict = chk ? chk.verdict : "";
  board.dataset.differ = chk && $("show-differ").checked ? String(chk.differ.length) : "0";
  board.dataset.undecided = chk && $("show-undecided").checked ? String(chk.undecided.length) : "0";
  if (chk) {
    if ($("show-undecided").checked) {
      ctx.fillStyle = hatchPattern(ctx);
      for (const [y, x] of chk.undecided) ctx.fillRect(left + x * cs, top + y * cs, cs, cs);
    }
    if ($("show-differ").checked) {
      ctx.strokeStyle = "#e0357a"; ctx.lineWidth = Math.max(1.5, cs / 9);
      for (const [y, x] of chk.differ) {
        const p = ctx.lineWidth / 2 + 1;
        ctx.strokeRect(left + x * cs + p, top + y * cs + p, cs - 2 * p, cs - 2 * p);
      }
    }
  }
  if (state.cursor) { // the row and column under the pointer, and their clues
    const { x, y } = state.cursor;
    ctx.fillStyle = "rgba(59, 108, 246, 0.10)";
    ctx.fillRect(0, top + y * cs, left + doc.w * cs, cs);
    ctx.fillRect(left + x * cs, 0, cs, top + doc.h * cs);
  }
  // grid lines: thin, every fifth darker
  for (let x = 0; x <= doc.w; x++) {
    ctx.fillStyle = x % 5 === 0 || x === doc.w ? "#5b6475" : "#d3d7de";
    ctx.fillRect(left + x * cs - (x % 5 === 0 ? 0.5 : 0), top, x % 5 === 0 || x === doc.w ? 1.2 : 0.7, doc.h * cs);
  }
  for (let y = 0; y <= doc.h; y++) {
    ctx.fillStyle = y % 5 === 0 || y === doc.h ? "#5b6475" : "#d3d7de";
    ctx.fillRect(left, top + y * cs - (y % 5 === 0 ? 0.5 : 0), doc.w * cs, y % 5 === 0 || y === doc.h ? 1.2 : 0.7);
  }
  // givens: a ring in the colour that reads on the cell (an X on a given background cell)
  for (const i of doc.givens) {
    const y = Math.floor(i / doc.w), x = i % doc.w, v = doc.cells[i];
    ctx.strokeStyle = v === 0 ? "#c27c0e" : textOn(doc.palette[v].hex);
    ctx.lineWidth = Math.max(1.5, cs / 10);
    const cx = left + x * cs + cs / 2, cy = top + y * cs + cs / 2, r = cs * 0.28;
    ctx.beginPath();
    if (v === 0) { ctx.moveTo(cx - r, cy - r); ctx.lineTo(cx + r, cy + r); ctx.moveTo(cx + r, cy - r); ctx.lineTo(cx - r, cy + r); }
    else ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    ctx.stroke();
  }
  board.dataset.givens = String(doc.givens.size);
  $("givens-count").textContent = doc.givens.size ? `(${doc.givens.size})` : "";
  if (state.hover && state.hover.kind === "given") {
    const { row, column } = state.hover;
    ctx.strokeStyle = "#3b6cf6"; ctx.lineWidth = 2.5;
    ctx.beginPath(); ctx.arc(left + column * cs + cs / 2, top + row * cs + cs / 2, cs * 0.85, 0, 2 * Math.PI); ctx.stroke();
  } else if (state.hover) {
    const { row, column, colour } = state.hover;
    const x0 = left + column * cs, y0 = top + row * cs;
    ctx.fillStyle = doc.palette[colour].hex;
    ctx.fillRect(x0 + cs * 0.2, y0 + cs * 0.2, cs * 0.6, cs * 0.6);
    ctx.strokeStyle = "#3b6cf6"; ctx.lineWidth = 2.5;
    ctx.beginPath(); ctx.arc(x0 + cs / 2, y0 + cs / 2, cs * 0.85, 0, 2 * Math.PI); ctx.stroke();
  }
  $("doc-dims").textContent = `${doc.w} × ${doc.h} · ${doc.palette.length - 1} colour${doc.palette.length > 2 ? "s" : ""}`;
}

// -- the palette ----------------------------------------------------------------------------

function renderPalette() {
  const box = $("palette");
  box.replaceChildren();
  doc.palette.forEach((c, i) => {
    const b = document.createElement("button");
    b.className = `swatch${i === state.colour ? " active" : ""}${i === 0 ? " bg" : ""}`;
    b.style.background = c.hex;
    b.title = i === 0 ? `${c.name} (background: clears)` : `${c.name} (key ${i})`;
    b.dataset.colour = String(i);
    const n = document.createElement("span"); n.className = "n"; n.textContent = String(i);
    b.appendChild(n);
    b.addEventListener("click", () => { state.colour = i; renderPalette(); });
    box.appendChild(b);
  });
}

$("add-colour").addEventListener("change", (e) => {
  if (doc.palette.length > 16) { toast("the studio's palette holds at most 16 colours", "error"); return; }
  const hex = e.target.value;
  let name = `c${doc.palette.length}`;
  while (doc.palette.some((c) => c.name === name)) name += "x";
  doc.palette.push({ name, hex });
  state.colour = doc.palette.length - 1;
  renderPalette(); changed();
});

// -- painting -------------------------------------------------------------------------------

let stroke = null;

function cellAt(ev) {
  const r = board.getBoundingClientRect();
  const x = Math.floor((ev.clientX - r.left - geo.left) / geo.cs);
  const y = Math.floor((ev.clientY - r.top - geo.top) / geo.cs);
  return x >= 0 && y >= 0 && x < doc.w && y < doc.h ? { x, y } : null;
}

function paintCell(c) {
  const i = c.y * doc.w + c.x;
  if (doc.cells[i] === stroke.value || stroke.seen.has(i)) return;
  stroke.seen.add(i);
  stroke.changes.push([i, doc.cells[i], stroke.value]);
  doc.cells[i] = stroke.value;
  draw();
}

board.addEventListener("contextmenu", (e) => e.preventDefault());
board.addEventListener("pointerdown", (e) => {
  const c = cellAt(e);
  if (!c) return;
  if ($("given-mode").checked) { toggleGiven(c.y * doc.w + c.x); return; }
  board.setPointerCapture(e.pointerId);
  const here = doc.cells[c.y * doc.w + c.x];
  const clearing = e.button === 2 || (here === state.colour && state.colour !== 0);
  stroke = { value: clearing ? 0 : state.colour, changes: [], seen: new Set() };
  state.hover = null;
  paintCell(c);
});
board.addEventListener("pointermove", (e) => {
  const c = cellAt(e);
  const key = c ? `${c.y},${c.x}` : "";
  if (key !== state.cursorKey) {
    state.cursor = c; state.cursorKey = key;
    $("cursor").textContent = c ? `R${c.y + 1} C${c.x + 1}` : "";
    if (!stroke) draw();
  }
  if (stroke && c) paintCell(c);
});
board.addEventListener("pointerleave", () => { state.cursor = null; state.cursorKey = ""; $("cursor").textContent = ""; if (!stroke) draw(); });
function endStroke() {
  if (!stroke) return;
  const s = stroke;
  stroke = null;
  if (s.changes.length) {
    state.undo.push(s.changes); state.redo = [];
    for (const [i, , v] of s.changes) state.edits.push([Math.floor(i / doc.w), i % doc.w, v]);
    changed();
  }
}
board.addEventListener("pointerup", endStroke);
board.addEventListener("pointercancel", endStroke);

// a change is [cell, before, after] for a colour, or [cell, had, has, "given"] for a given
function applyChanges(changes, forward) {
  for (const [i, before, after, what] of forward ? changes : [...changes].reverse()) {
    const v = forward ? after : before;
    if (what === "given") { if (v) doc.givens.add(i); else doc.givens.delete(i); } else doc.cells[i] = v;
  }
}
function commit(changes) {
  if (!changes.length) return;
  applyChanges(changes, true);
  state.undo.push(changes); state.redo = [];
  for (const [i, , v, what] of changes) if (what !== "given") state.edits.push([Math.floor(i / doc.w), i % doc.w, v]);
  changed();
}
function toggleGiven(i) { const had = doc.givens.has(i) ? 1 : 0; commit([[i, had, 1 - had, "given"]]); }
$("givens-clear").addEventListener("click", () => commit([...doc.givens].map((i) => [i, 1, 0, "given"])));
function undo() { const c = state.undo.pop(); if (!c) return; applyChanges(c, false); state.redo.push(c); changed(); }
function redo() { const c = state.redo.pop(); if (!c) return; applyChanges(c, true); state.undo.push(c); changed(); }
$("undo").addEventListener("click", undo);
$("redo").addEventListener("click", redo);
document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement) return;
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") { e.preventDefault(); if (e.shiftKey) redo(); else undo(); }
  else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "y") { e.preventDefault(); redo(); }
  else if (/^[0-9]$/.test(e.key) && Number(e.key) < doc.palette.length) { state.colour = Number(e.key); renderPalette(); }
  else if (e.key.toLowerCase() === "g" && !e.ctrlKey && !e.metaKey) $("given-mode").checked = !$("given-mode").checked;
});

// -- the solver watching --------------------------------------------------------------------

function changed() {
  state.seq += 1;
  state.hover = null;
  showChecking();
  draw();
  $("undo").disabled = !state.undo.length;
  $("redo").disabled = !state.redo.length;
  runCheck(state.seq);
}

function gradeButton() {
  const b = document.createElement("button");
  b.id = "grade"; b.className = "link"; b.textContent = "grade it";
  b.addEventListener("click", gradeIt);
  $("fact-grade").replaceChildren(b);
  $("grade-now").textContent = "—";
}

function showGrade(grade, score, status) {
  $("fact-grade").textContent = grade == null ? `— (${status})` : `${grade} of 5 · score ${Math.round(score)}`;
  $("grade-now").textContent = grade == null ? "—" : `${grade} of 5`;
}

async function gradeIt() {
  const seq = state.seq;
  $("fact-grade").textContent = "…";
  try {
    const out = await api("/api/grade", { method: "POST", json: documentJSON() });
    if (seq !== state.seq) return; // graded a grid the page no longer holds
    showGrade(out.grade, out.score, out.status);
    if (out.grade != null) $("grade-target").value = String(Math.min(5, out.grade + 1));
  } catch (err) { if (seq === state.seq) { gradeButton(); toast(err.message, "error"); } }
}

async function repairIt() {
  const seq = state.seq;
  $("repair").disabled = true;
  try {
    const out = await api("/api/repair", { method: "POST", json: documentJSON() });
    if (seq !== state.seq) return; // the picture changed meanwhile: its repair is stale
    if (!out.changed.length) { toast(out.accepted ? "nothing to fix" : `no fix found (${out.refusal})`, out.accepted ? "ok" : "error"); return; }
    commit(out.changed.map(([y, x, v]) => [y * doc.w + x, doc.cells[y * doc.w + x], v]));
    toast(`${out.accepted ? "fixed" : "improved"} with ${out.changed.length} edit${out.changed.length > 1 ? "s" : ""}`);
  } catch (err) { toast(err.message, "error"); } finally { $("repair").disabled = false; }
}
$("repair").addEventListener("click", repairIt);

// "harder" and "easier": edits toward the target human grade, each step proven unique
async function regradeIt(direction) {
  const seq = state.seq;
  const target = Number($("grade-target").value);
  for (const id of ["harder", "easier"]) $(id).disabled = true;
  $("grade-note").textContent = `making it ${direction}: each edit is solved and rated…`;
  try {
    // the same sequence as the checks: a stroke made meanwhile supersedes the search, and
    // the server stops it between two candidates (409)
    const out = await api("/api/regrade", { method: "POST", json: { direction, target, seq, page: PAGE, ...documentJSON() } });
    if (out.seq !== state.seq) { $("grade-note").textContent = "the picture changed meanwhile: ask again"; return; }
    const ungiven = out.ungiven || [];
    const n = out.changed.length + ungiven.length;
    const said = `grade ${out.grade_before} → ${out.grade_after} (wanted ${out.grade_wanted}), ${out.changed.length} edit${out.changed.length === 1 ? "" : "s"}${ungiven.length ? `, ${ungiven.length} given${ungiven.length === 1 ? "" : "s"} removed` : ""}${out.note ? `: ${out.note}` : ""}`;
    if (n) {
      commit([...out.changed.map(([y, x, v]) => [y * doc.w + x, doc.cells[y * doc.w + x], v]),
        ...ungiven.map(([y, x]) => [y * doc.w + x, 1, 0, "given"])]);
    }
    showGrade(out.grade_after, out.score_after, "unique");
    $("grade-note").textContent = said;
    toast(said, out.reached ? "ok" : "error");
  } catch (err) {
    if (seq !== state.seq) { $("grade-note").textContent = "the picture changed meanwhile: ask again"; return; }
    $("grade-note").textContent = err.message; toast(err.message, "error");
  }
  finally { for (const id of ["harder", "easier"]) $(id).disabled = false; }
}
$("harder").addEventListener("click", () => regradeIt("harder"));
$("easier").addEventListener("click", () => regradeIt("easier"));

function showChecking() {
  gradeButton();
  $("verdict-card").dataset.verdict = "checking";
  $("verdict").textContent = "Checking…";
  $("verdict-sub").textContent = "";
  for (const id of ["fact-line", "fact-undecided", "fact-differ", "fact-technique"]) $(id).textContent = "…";
  $("suggestions").replaceChildren();
  $("sugg-count").textContent = "";
}

async function runCheck(seq, thorough = false) {
  if (state.controller) state.controller.abort(); // the newest stroke supersedes a running check
  const controller = new AbortController();
  state.controller = controller;
  try {
    const out = await api("/api/check", { method: "POST", json: { seq, page: PAGE, thorough, ...documentJSON() }, signal: controller.signal });
    if (out.seq !== state.seq) return; // an answer for a grid the page no longer holds
    state.check = out; state.shownSeq = out.seq;
    showCheck(out);
    draw();
  } catch (err) {
    if (err.name === "AbortError") return;
    if (seq === state.seq) { $("verdict").textContent = "Error"; $("verdict-sub").textContent = err.message; toast(err.message, "error"); }
  }
}

const WORDS = { unique: "Unique", multiple: "Multiple", none: "No solution", budget: "Too hard to say", timeout: "Too hard to say" };

function showCheck(out) {
  const card = $("verdict-card");
  card.dataset.verdict = out.verdict;
  $("verdict").textContent = WORDS[out.verdict] || out.verdict;
  $("verdict-sub").textContent = out.verdict === "unique"
    ? (out.line_solves ? "solvable by line logic alone" : "unique, but line logic alone gets stuck")
    : out.verdict === "multiple" ? "the clues allow more than one picture" : out.verdict === "none" ? "" : "the quick check ran out of its work budget";
  if (out.verdict === "budget" || out.verdict === "timeout") {
    const more = document.createElement("button");
    more.className = "link"; more.id = "thorough"; more.textContent = "check thoroughly";
    more.addEventListener("click", () => {
      const seq = state.seq;
      showChecking();
      $("verdict").textContent = "Checking thoroughly…";
      runCheck(seq, true);
    });
    $("verdict-sub").append(" · ", more);
  }
  $("fact-line").textContent = out.line_solves ? "finishes it" : "gets stuck";
  $("fact-undecided").textContent = String(out.undecided.length);
  $("fact-differ").textContent = out.verdict === "multiple" ? String(out.differ.length) : "—";
  $("fact-technique").textContent = out.technique || "—";
  $("repair").disabled = out.line_solves;
  const list = $("suggestions");
  list.replaceChildren();
  $("sugg-count").textContent = out.suggestions.length ? `(${out.suggestions.length})` : "";
  $("sugg-empty").textContent = out.line_solves
    ? "Line logic finishes this picture: nothing to fix."
    : out.suggestions.length ? "" : "No single-cell change or given near the stuck cells helps; try a larger edit.";
  out.suggestions.forEach((s, k) => {
    const li = document.createElement("li");
    li.dataset.rank = String(k);
    const sw = document.createElement("span"); sw.className = "sw"; sw.style.background = doc.palette[s.colour].hex;
    const what = document.createElement("span"); what.className = "what";
    const b = document.createElement("b");
    b.textContent = `${s.kind === "given" ? "Give" : s.colour === 0 ? "Clear" : "Paint"} R${s.row + 1} C${s.column + 1}`;
    li.dataset.kind = s.kind || "paint";
    const small = document.createElement("small");
    small.className = s.unique ? "good" : "";
    small.textContent = s.unique ? "→ unique by line logic" : `→ ${s.gain} fewer undecided`;
    what.append(b, small);
    const apply = document.createElement("button");
    apply.className = "apply"; apply.textContent = "Apply";
    apply.title = s.kind === "given" ? "Give this cell: print it solved on the sheet (undo takes it back)" : "Apply this change (undo takes it back)";
    apply.addEventListener("click", () => applySuggestion(s));
    li.append(sw, what, apply);
    li.addEventListener("mouseenter", () => { state.hover = s; draw(); });
    li.addEventListener("mouseleave", () => { state.hover = null; draw(); });
    list.appendChild(li);
  });
}

function applySuggestion(s) {
  const i = s.row * doc.w + s.column;
  commit(s.kind === "given" ? [[i, 0, 1, "given"]] : [[i, doc.cells[i], s.colour]]);
}

for (const id of ["show-undecided", "show-differ", "show-clues"]) $(id).addEventListener("change", draw);
window.addEventListener("resize", draw);
$("doc-title").addEventListener("input", (e) => { doc.title = e.target.value; });
$("doc-author").addEventListener("input", (e) => { doc.author = e.target.value; });

// -- starting points ------------------------------------------------------------------------

$("new-blank").addEventListener("click", () => {
  const w = Number($("new-w").value), h = Number($("new-h").value);
  if (!(w >= 1 && w <= 100 && h >= 1 && h <= 100)) { toast("a grid is 1..100 cells a side", "error"); return; }
  loadDocument({ width: w, height: h, cells: Array.from({ length: h }, () => new Array(w).fill(0)),
    palette: doc.palette, title: "", author: "" }, { origin: "blank" });
});

$("resize").addEventListener("click", () => {
  const w = Number($("new-w").value), h = Number($("new-h").value);
  if (!(w >= 1 && w <= 100 && h >= 1 && h <= 100)) { toast("a grid is 1..100 cells a side", "error"); return; }
  const cells = Array.from({ length: h }, (_, y) => Array.from({ length: w },
    (_, x) => (y < doc.h && x < doc.w ? doc.cells[y * doc.w + x] : 0)));
  const givens = [...doc.givens].map((i) => [Math.floor(i / doc.w), i % doc.w]);
  const keep = { title: doc.title, author: doc.author, givens };
  loadDocument({ width: w, height: h, cells, palette: doc.palette, ...keep }, doc.provenance);
});

$("example-select").addEventListener("change", async (e) => {
  const name = e.target.value;
  if (!name) return;
  try {
    const out = await api(`/api/open?example=${encodeURIComponent(name)}`, { method: "POST" });
    loadDocument(out.document, { origin: `example:${name}` });
  } catch (err) { toast(err.message, "error"); }
  e.target.value = "";
});

$("open-file").addEventListener("change", async (e) => {
  const f = e.target.files[0];
  if (!f) return;
  try {
    const out = await api(`/api/open?name=${encodeURIComponent(f.name)}`, { method: "POST", body: f });
    loadDocument(out.document, { origin: "file" });
    if (out.count > 1) toast(`opened the first of ${out.count} puzzles in the file`);
  } catch (err) { toast(err.message, "error"); }
  e.target.value = "";
});

$("paste-toggle").addEventListener("click", () => { $("paste-box").hidden = !$("paste-box").hidden; });
$("paste-open").addEventListener("click", async () => {
  const text = $("paste-text").value;
  if (!text.trim()) return;
  try {
    const out = await api("/api/open?name=pasted", { method: "POST", body: new Blob([text], { type: "text/plain" }) });
    loadDocument(out.document, { origin: "pasted" });
  } catch (err) { toast(err.message, "error"); }
});

// -- saving ---------------------------------------------------------------------------------

$("save").addEventListener("click", async () => {
  try {
    const prov = { ...(doc.provenance || {}), edits: state.edits };
    const out = await api("/api/save", { method: "POST", json: { document: documentJSON(), provenance: prov } });
    const note = out.new ? "saved to the corpus" : "already in the corpus";
    const a = document.createElement("a");
    a.href = `/play/${encodeURIComponent(out.key)}`; a.target = "_blank"; a.rel = "noopener";
    a.textContent = "play it";
    $("saved-note").replaceChildren(`${note}: ${out.key} · `, a);
    toast(note);
  } catch (err) { toast(err.message, "error"); }
});

$("download").addEventListener("click", async () => {
  const format = $("format-select").value;
  try {
    const res = await api("/api/download", { method: "POST", json: { format, document: documentJSON() }, raw: true });
    const blob = await res.blob();
    const m = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") || "");
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = m ? m[1] : "puzzle";
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  } catch (err) { toast(err.message, "error"); }
});

// -- from a picture -------------------------------------------------------------------------

const picture = { file: null, example: null, result: null, seq: 0, url: null, box: null };

function drawPictureGrid(d, edited) {
  const c = $("pic-grid");
  const cs = Math.max(4, Math.min(14, Math.floor(360 / Math.max(d.width, d.height))));
  c.width = d.width * cs; c.height = d.height * cs;
  const ctx = c.getContext("2d");
  d.cells.forEach((row, y) => row.forEach((v, x) => { ctx.fillStyle = d.palette[v].hex; ctx.fillRect(x * cs, y * cs, cs, cs); }));
  ctx.strokeStyle = "#e0357a"; ctx.lineWidth = 2;
  for (const [y, x] of edited) ctx.strokeRect(x * cs + 1, y * cs + 1, cs - 2, cs - 2);
}

async function regenerate() {
  if (!picture.file && !picture.example) return;
  const seq = ++picture.seq;
  const q = new URLSearchParams({
    width: $("pic-w").value, height: $("pic-h").value, colours: $("pic-colours").value,
    technique: $("pic-technique").value, crop: $("pic-crop").checked ? "1" : "0",
    // styles draw black and white: a colour picture is a silhouette
    style: Number($("pic-colours").value) > 1 ? "silhouette" : $("pic-style").value,
  });
  if (picture.example) q.set("example", picture.example); else q.set("name", picture.file.name);
  if (picture.box) q.set("box", picture.box.map((v) => v.toFixed(4)).join(","));
  $("pane-picture").classList.add("busy");
  $("pic-card").dataset.verdict = "checking";
  $("pic-verdict").textContent = "Generating…";
  try {
    const out = await api(`/api/picture?${q}`, { method: "POST", body: picture.example ? undefined : picture.file });
    if (seq !== picture.seq) return;
    picture.result = out;
    const s = out.summary;
    $("pic-card").dataset.verdict = s.status;
    $("pic-verdict").textContent = (WORDS[s.status] || s.status) + (s.accepted ? "" : " (not accepted)");
    $("pic-technique-out").textContent = s.technique || "—";
    $("pic-style-out").textContent = s.style || "—";
    $("pic-grade").textContent = out.grade == null ? "—" : `${out.grade} of 5`;
    $("pic-score").textContent = out.score == null ? "—" : Number(out.score).toFixed(2);
    $("pic-likeness").textContent = s.likeness == null ? "—" : Number(s.likeness).toFixed(2);
    $("pic-edits").textContent = `${s.edits} (${(100 * s.edit_fraction).toFixed(1)} %)`;
    $("pic-time").textContent = `${Number(s.time_s).toFixed(2)} s`;
    $("pic-sheet").src = out.sheet;
    drawPictureGrid(out.document, out.edited);
    $("pic-edit").disabled = false;
  } catch (err) {
    if (seq === picture.seq) { $("pic-verdict").textContent = "Error"; $("pic-card").dataset.verdict = "none"; toast(err.message, "error"); }
  } finally {
    if (seq === picture.seq) $("pane-picture").classList.remove("busy");
  }
}

// the crop: a rectangle dragged on the source, sent as fractions of its width and height
function showCropBox() {
  const b = picture.box, el = $("crop-box");
  el.hidden = !b; $("pic-uncrop").hidden = !b;
  if (!b) return;
  Object.assign(el.style, { left: `${100 * b[0]}%`, top: `${100 * b[1]}%`, width: `${100 * (b[2] - b[0])}%`, height: `${100 * (b[3] - b[1])}%` });
}
function setCrop(box) { picture.box = box; showCropBox(); }
let cropDrag = null;
function cropPoint(e) {
  const r = $("pic-source").getBoundingClientRect();
  return [Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)), Math.min(1, Math.max(0, (e.clientY - r.top) / r.height))];
}
function cropFrom(a, b) { return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])]; }
$("crop-wrap").addEventListener("pointerdown", (e) => {
  if (!$("pic-source").getAttribute("src")) return;
  e.preventDefault();
  $("crop-wrap").setPointerCapture(e.pointerId);
  cropDrag = cropPoint(e);
});
$("crop-wrap").addEventListener("pointermove", (e) => {
  if (!cropDrag) return;
  picture.box = cropFrom(cropDrag, cropPoint(e)); showCropBox();
});
$("crop-wrap").addEventListener("pointerup", (e) => {
  if (!cropDrag) return;
  const box = cropFrom(cropDrag, cropPoint(e));
  cropDrag = null;
  // a click, or a sliver: no crop
  setCrop(box[2] - box[0] > 0.03 && box[3] - box[1] > 0.03 ? box : null);
  regenerate();
});
$("pic-uncrop").addEventListener("click", () => { setCrop(null); regenerate(); });

function pickPicture(file) {
  setCrop(null);
  picture.file = file; picture.example = null;
  if (picture.url) URL.revokeObjectURL(picture.url);
  picture.url = URL.createObjectURL(file);
  $("pic-source").src = picture.url;
  regenerate();
}

$("picture-file").addEventListener("change", (e) => { if (e.target.files[0]) pickPicture(e.target.files[0]); e.target.value = ""; });
const drop = $("drop");
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault(); drop.classList.remove("over");
  if (e.dataTransfer.files[0]) pickPicture(e.dataTransfer.files[0]);
});
$("picture-example").addEventListener("change", (e) => {
  if (!e.target.value) return;
  setCrop(null);
  picture.example = e.target.value; picture.file = null;
  $("pic-source").src = `/api/example-image/${encodeURIComponent(picture.example)}`;
  regenerate();
});
let regenTimer = null;
function styleApplies() { $("pic-style").disabled = Number($("pic-colours").value) > 1; }
$("pic-colours").addEventListener("input", styleApplies);
for (const id of ["pic-w", "pic-h", "pic-colours", "pic-technique", "pic-style", "pic-crop"]) {
  $(id).addEventListener("change", () => { clearTimeout(regenTimer); regenTimer = setTimeout(regenerate, 250); });
}
$("pic-edit").addEventListener("click", () => {
  if (!picture.result) return;
  loadDocument(picture.result.document, picture.result.provenance);
  selectTab("editor");
});

// -- the corpus -----------------------------------------------------------------------------

const corpus = { page: 0, more: false, picked: new Map() };

function showSelection() {
  $("selection").hidden = corpus.picked.size === 0;
  $("sel-count").textContent = `${corpus.picked.size} selected`;
}
$("sel-clear").addEventListener("click", () => {
  corpus.picked.clear();
  document.querySelectorAll(".card").forEach((c) => { c.classList.remove("picked"); c.querySelector(".pick").checked = false; });
  showSelection();
});
$("sel-export").addEventListener("click", async () => {
  const to = $("sel-to").value;
  $("sel-export").disabled = true;
  try {
    const res = await api("/api/export", { method: "POST", raw: true,
      json: { keys: [...corpus.picked.keys()], to, name: $("sel-name").value } });
    const blob = await res.blob();
    const m = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") || "");
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob); a.download = m ? m[1] : `selection.${to}`;
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
    toast(`exported ${corpus.picked.size} puzzle${corpus.picked.size > 1 ? "s" : ""}`);
  } catch (err) { toast(err.message, "error"); } finally { $("sel-export").disabled = false; }
});

function drawThumb(canvas, item) {
  const w = item.width, h = item.height;
  canvas.width = w; canvas.height = h;
  const scale = 120 / Math.max(w, h);
  canvas.style.width = `${Math.round(w * scale)}px`; canvas.style.height = `${Math.round(h * scale)}px`;
  const ctx = canvas.getContext("2d");
  const img = ctx.createImageData(w, h);
  const rgb = item.palette.map((hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)));
  for (let i = 0; i < w * h; i++) {
    const v = item.thumb ? item.thumb.charCodeAt(i) - 48 : 0;
    const c = rgb[v] || [200, 200, 200];
    img.data.set([c[0], c[1], c[2], 255], i * 4);
  }
  ctx.putImageData(img, 0, 0);
}

async function loadCorpus() {
  const q = new URLSearchParams({ page: String(corpus.page), per_page: "50" });
  for (const [id, name] of [["f-text", "text"], ["f-author", "author"], ["f-size", "size"], ["f-colours", "colours"], ["f-grade", "grade"], ["f-source", "source"], ["f-status", "status"]]) {
    if ($(id).value.trim()) q.set(name, $(id).value.trim());
  }
  try {
    const out = await api(`/api/corpus?${q}`);
    corpus.more = out.more;
    const cards = $("cards");
    cards.replaceChildren();
    for (const item of out.items) {
      const card = document.createElement("div");
      card.className = "card"; card.dataset.key = item.key;
      const cv = document.createElement("canvas");
      drawThumb(cv, item);
      const t = document.createElement("div"); t.className = "t"; t.textContent = item.title || "(untitled)";
      t.title = item.author ? `${item.title || "(untitled)"} by ${item.author}` : (item.title || "");
      const m = document.createElement("div"); m.className = "m";
      m.textContent = `${item.width}×${item.height} · ${item.colors} col · ${item.source || item.site || ""}`;
      const box = document.createElement("div"); box.className = "thumb"; box.appendChild(cv);
      const play = document.createElement("a");
      play.className = "play"; play.textContent = "Play"; play.target = "_blank"; play.rel = "noopener";
      play.href = `/play/${encodeURIComponent(item.key)}`;
      play.addEventListener("click", (e) => e.stopPropagation());
      const pick = document.createElement("input");
      pick.type = "checkbox"; pick.className = "pick"; pick.title = "Select for a collection";
      pick.checked = corpus.picked.has(item.key);
      card.classList.toggle("picked", pick.checked);
      pick.addEventListener("click", (e) => e.stopPropagation());
      pick.addEventListener("change", () => {
        if (pick.checked) corpus.picked.set(item.key, item.title); else corpus.picked.delete(item.key);
        card.classList.toggle("picked", pick.checked);
        showSelection();
      });
      card.append(pick, box, t, m, play);
      card.addEventListener("click", async () => {
        try {
          const d = await api(`/api/corpus/${encodeURIComponent(item.key)}`);
          loadDocument(d.document, { origin: `corpus:${item.key}` });
          selectTab("editor");
        } catch (err) { toast(err.message, "error"); }
      });
      cards.appendChild(card);
    }
    $("corpus-empty").textContent = out.items.length ? "" : "No puzzle matches these filters.";
    $("f-page").textContent = `page ${corpus.page + 1}`;
    $("f-prev").disabled = corpus.page === 0;
    $("f-next").disabled = !corpus.more;
  } catch (err) { toast(err.message, "error"); }
}
$("f-apply").addEventListener("click", () => { corpus.page = 0; loadCorpus(); });
document.querySelectorAll(".filters input").forEach((el) => el.addEventListener("keydown", (e) => {
  if (e.key === "Enter") { corpus.page = 0; loadCorpus(); }
}));
$("f-prev").addEventListener("click", () => { if (corpus.page > 0) { corpus.page--; loadCorpus(); } });
$("f-next").addEventListener("click", () => { if (corpus.more) { corpus.page++; loadCorpus(); } });

// -- tabs and start-up ----------------------------------------------------------------------

function selectTab(name) {
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.tab === name));
  document.querySelectorAll(".pane").forEach((p) => p.classList.toggle("active", p.id === `pane-${name}`));
  if (name === "editor") draw();
  if (name === "corpus") loadCorpus();
}
document.querySelectorAll(".tab").forEach((t) => t.addEventListener("click", () => selectTab(t.dataset.tab)));

async function start() {
  renderPalette();
  changed();
  try {
    const ex = await api("/api/examples");
    for (const e of ex.examples) {
      const o = document.createElement("option");
      o.value = e.name; o.textContent = e.name;
      $(e.kind === "image" ? "picture-example" : "example-select").appendChild(o);
    }
    const fm = await api("/api/formats");
    for (const f of fm.formats) {
      const o = document.createElement("option");
      o.value = f.name; o.textContent = `${f.name} (${f.extension || "?"})`;
      $("format-select").appendChild(o);
    }
    $("format-select").value = "non";
  } catch (err) { toast(err.message, "error"); }
  document.body.dataset.ready = "1";
}
start();
