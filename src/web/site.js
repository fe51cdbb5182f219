// hexarena: helpers shared by every page (served at /assets/site.js).
// Every text that comes from the API is inserted with textContent, never as HTML.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";

/** An element with attributes ("class", "text" or any attribute) and children (nodes or text). */
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An SVG element with attributes and an optional text. */
function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A table cell; "–" for a missing value. */
function td(content, cls) {
  return el("td", { class: cls }, content === undefined || content === null || content === "" ? "–" : content);
}

/** GET a JSON document; a refusal throws an Error carrying the status and the API's message. */
async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" });
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) {
    const msg = data && data.error ? data.error.message || data.error.code : "HTTP " + res.status;
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return data;
}

/** A name chosen by a user, bidi-isolated (`<bdi>`): a right-to-left name never reorders the
 * text around it. */
function isolated(name) {
  return el("bdi", {}, name);
}

/** A link to a bot's page; `dir="auto"` isolates its name like `isolated`. */
function botLink(name) {
  if (name === undefined || name === null || name === "") return document.createTextNode("?");
  return el("a", { href: "/bots/" + encodeURIComponent(name), class: "bot", dir: "auto" }, String(name));
}

/** A link to a set's page; its text is `content` or a shortened id. */
function setLink(id, content) {
  const s = String(id);
  const shortId = s.length > 14 ? "…" + s.slice(-8) : s;
  return el("a", { href: "/sets/" + encodeURIComponent(s), title: s }, content ?? shortId);
}

/** "A vs B" with both names linked to their bot pages and "vs" linked to the set. */
function pairing(setId, a, b) {
  return el("span", null, botLink(a), " ", setLink(setId, "vs"), " ", botLink(b));
}

/** A set's tournament as a tag linking to the event (`Cup r3`), or null. */
function tournamentTag(s) {
  const t = s && s.tournament;
  return t ? el("a", { class: "tag", href: t.url }, isolated(t.name), ` r${t.round}`) : null;
}

/** Points with halves written as ½. */
function half(x) {
  if (typeof x !== "number") return "–";
  const whole = Math.floor(x);
  return x - whole === 0.5 ? (whole ? String(whole) : "") + "½" : String(x);
}

function fmtPoints(p) {
  return Array.isArray(p) ? p.map(half).join(" – ") : "–";
}

function fmtBoard(o) {
  if (!o) return "–";
  const size = o.size ?? 11;
  const stones = o.random_stones ?? 4;
  return `${size}×${size}, ${stones === 0 ? "swap" : stones + " stones"}`;
}

function fmtClockSettings(c) {
  // No break between a number and its unit.
  return c ? `${c.initial_s ?? "?"}\u00a0s + ${c.increment_s ?? "?"}\u00a0s` : "–";
}

function fmtStake(s) {
  if (s === 0) return "none";
  return s === undefined || s === null ? "–" : s + " PTS";
}

function fmtSigned(n) {
  return Number.isFinite(n) ? (n > 0 ? "+" + n : String(n)) : "–";
}

/** A <time> saying how long ago `iso` was. */
function ago(iso) {
  const t = Date.parse(iso);
  if (!iso || Number.isNaN(t)) return el("span", { class: "muted" }, "–");
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  let text;
  if (s < 60) text = s + " s ago";
  else if (s < 3600) text = Math.floor(s / 60) + " min ago";
  else if (s < 86400) text = Math.floor(s / 3600) + " h ago";
  else text = new Date(t).toISOString().slice(0, 10);
  return el("time", { datetime: iso, title: iso }, text);
}

/** An RFC 3339 time to the minute in UTC, as the standings pages print it. */
function fmtUtc(iso) {
  const t = Date.parse(iso);
  return iso && !Number.isNaN(t) ? new Date(t).toISOString().slice(0, 16).replace("T", " ") + " UTC" : "–";
}

/** "starts …" for a tournament with a scheduled start that has not started yet, else "". */
function fmtStarts(t) {
  return t && t.start_at && !t.started_at ? "starts " + fmtUtc(t.start_at) : "";
}

function fmtTime(iso) {
  const t = Date.parse(iso);
  return iso && !Number.isNaN(t) ? new Date(t).toLocaleString() : "–";
}

/** Fills a tbody, or shows its "-empty" note when there are no rows. */
function fill(tbodyId, rows, makeRow, emptyText) {
  const tbody = document.getElementById(tbodyId);
  const empty = document.getElementById(tbodyId + "-empty");
  tbody.replaceChildren(...rows.map(makeRow));
  if (empty) {
    empty.hidden = rows.length > 0;
    empty.textContent = emptyText;
  }
}

/** Shows an error in place of a table's rows. */
function showError(tbodyId, message) {
  document.getElementById(tbodyId).replaceChildren();
  const empty = document.getElementById(tbodyId + "-empty");
  if (empty) {
    empty.hidden = false;
    empty.textContent = message;
  }
}

/**
 * Calls `start()` once a person is at the page (a pointer, a key, a touch, a wheel or the
 * tab coming back into view). An open stream keeps a page busy for good, so a page nobody
 * touches (a screenshot, a print, a link preview) opens none; it polls with short requests.
 * Not on "scroll": the page scrolls its own move lists.
 */
function whenSomeoneIsThere(start) {
  const events = ["pointerdown", "pointermove", "keydown", "touchstart", "wheel"];
  let started = false;
  const go = () => {
    if (started) return;
    started = true;
    for (const e of events) window.removeEventListener(e, go, true);
    document.removeEventListener("visibilitychange", onVisible);
    start();
  };
  const onVisible = () => { if (document.visibilityState === "visible") go(); };
  for (const e of events) window.addEventListener(e, go, { capture: true, passive: true });
  document.addEventListener("visibilitychange", onVisible);
}

/**
 * Calls `reload(setIds)` when the public stream (`GET /v1/events`) reports a change, at most
 * once per `gapMs`. Until someone is at the page (see `whenSomeoneIsThere`), and while the
 * stream is down, it reloads every `pollMs` instead (not while the tab is hidden).
 */
function onArenaChanges(reload, gapMs = 700, pollMs = 2500) {
  let timer = null, pending = new Set(), poll = null;
  const fire = () => {
    timer = null;
    const ids = pending;
    pending = new Set();
    reload(ids);
  };
  const queue = id => {
    pending.add(id);
    if (!timer) timer = setTimeout(fire, gapMs);
  };
  const startPolling = () => {
    if (!poll) poll = setInterval(() => { if (!document.hidden) queue(null); }, pollMs);
  };
  const stopPolling = () => { if (poll) { clearInterval(poll); poll = null; } };
  startPolling();
  if (!("EventSource" in window)) return;
  whenSomeoneIsThere(() => {
    const es = new EventSource("/v1/events");
    es.addEventListener("set", ev => {
      try { queue(JSON.parse(ev.data).set_id ?? null); } catch (_) { queue(null); }
    });
    es.addEventListener("open", () => { if (poll) { stopPolling(); queue(null); } });
    es.addEventListener("error", startPolling);
    window.addEventListener("pagehide", () => es.close());
  });
}
