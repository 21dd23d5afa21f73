/* Cadence chat page: plain JavaScript, no framework and no build step (see docs/web.md).
 *
 * Sections: helpers · API calls and errors · threads · sending (stream + fallback) · answers and
 * their trace · approvals and checkpoint history (human in the loop) · graph drawing · plugins ·
 * dialogs and start-up. Text from the server is always set with textContent (never innerHTML).
 */
"use strict";

// -- helpers -------------------------------------------------------------------------------
const $ = (id) => document.getElementById(id);

/** Build an element: el("td", {className: "x"}, "text", childNode). Strings become text nodes. */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "className") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const json = (value) => JSON.stringify(value, null, 2);
const ms = (value) => (value === null || value === undefined ? "–" : `${Math.round(Number(value))} ms`);

function ago(iso) {
  const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
  if (!Number.isFinite(seconds)) return "";
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

const state = {
  key: sessionStorage.getItem("cadence.apiKey") || localStorage.getItem("cadence.apiKey") || "",
  keysRequired: false,
  threadId: null,
  threads: [],
  busy: false,
  down: false,
  pollTimer: null,
  streamUnavailable: false,
  /** Messages sent so far: a reload that started before one was sent must not clear its answer. */
  sent: 0,
  /** The conversation follows new text (false once the user scrolls up, true again at the end). */
  followEnd: true,
  /**
   * The turn under way: its thread (once the server named it), the question's text and node (null for
   * a resumed turn) and its AnswerView. Opening its thread again while it runs shows it again.
   */
  live: null,
};

// -- API calls and errors ------------------------------------------------------------------
class ApiError extends Error {
  /** status 0: the server could not be reached (or the connection dropped). */
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body || null;
  }
}

async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch (_) {
    /* not JSON (a proxy's page) */
  }
  const err = (body && body.error) || {};
  return new ApiError(response.status, err.code || `http_${response.status}`,
    err.message || `The server answered ${response.status} ${response.statusText}.`, body);
}

/**
 * The first character of ``key`` that an HTTP header cannot carry (a control character, or one beyond
 * ISO-8859-1, e.g. a typographic dash or a zero-width space pasted along), described; null if none.
 */
function unsendableInKey(key) {
  for (const char of key) {
    const code = char.codePointAt(0);
    if (code < 0x20 || code === 0x7f || code > 0xff) {
      return `“${char}” (U+${code.toString(16).toUpperCase().padStart(4, "0")})`;
    }
  }
  return null;
}

/** fetch() with the API key, JSON bodies and Cadence's error shape turned into ApiError. */
async function api(path, { method = "GET", body, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (state.key && unsendableInKey(state.key)) {
    // fetch() would refuse the header, which reads as "server unreachable" (and retries forever)
    throw new ApiError(401, "invalid_api_key", "The saved API key cannot be sent.");
  }
  if (state.key) headers.Authorization = `Bearer ${state.key}`;
  let response;
  try {
    response = await fetch(path, {
      method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError(0, "server_unreachable",
      `Cannot reach the Cadence server at ${location.origin}. Is \`cadence serve\` running?`);
  }
  if (!response.ok) throw await errorFrom(response);
  markUp();
  return response;
}

const getJson = async (path) => (await api(path)).json();

function showBanner(text, { kind = "error", action = null, onAction = null } = {}) {
  const banner = $("banner");
  banner.className = kind === "info" ? "banner info" : "banner";
  banner.dataset.kind = kind;
  $("banner-text").textContent = text;
  const button = $("banner-action");
  button.hidden = !action;
  button.textContent = action || "";
  button.onclick = onAction;
  banner.hidden = false;
}

function hideBanner(kind) {
  if (!kind || $("banner").dataset.kind === kind) $("banner").hidden = true;
}

/** One place decides what the user sees for an error: down, 401, 409 or the server's message. */
function handleError(err) {
  if (!(err instanceof ApiError)) {
    console.error(err);
    showBanner(`Something went wrong in the page: ${err.message}`);
    return;
  }
  if (err.status === 0) {
    markDown(err.message);
    return;
  }
  if (err.status === 401) {
    state.keysRequired = true;
    $("key-button").hidden = false;
    askForKey(err.code === "invalid_api_key"
      ? "The API key was not accepted. Enter a valid key from CADENCE_API_KEYS."
      : "This server needs an API key (CADENCE_API_KEYS). Enter yours to continue.");
    showBanner("An API key is required.", { kind: "auth", action: "Enter key", onAction: () => askForKey() });
    return;
  }
  if (err.status === 409 && err.code === "approval_pending") {
    showBanner(`This thread waits for your approval of a tool call: decide it above before sending a new `
      + `message. (${err.message})`, { kind: "busy" });
    return;
  }
  if (err.status === 409) {
    showBanner(`This thread is busy with another request (another tab or client). Wait for it to finish, `
      + `then send again. (${err.message})`, { kind: "busy" });
    return;
  }
  showBanner(err.message, { kind: "error" });
}

function markUp() {
  if (!state.down) return;
  state.down = false;
  clearInterval(state.pollTimer);
  state.pollTimer = null;
  $("conn-status").className = "conn";
  $("conn-status").title = "Connected";
  $("conn-status").setAttribute("aria-label", "Connected");
  showBanner("Reconnected to the server.", { kind: "info" });
  setTimeout(() => hideBanner("info"), 3000);
  loadAll();
}

function markDown(message) {
  state.down = true;
  $("conn-status").className = "conn down";
  $("conn-status").title = "Server unreachable";
  $("conn-status").setAttribute("aria-label", "Server unreachable");
  showBanner(`${message} Retrying every 3 seconds.`, { kind: "down", action: "Retry now", onAction: checkHealth });
  if (!state.pollTimer) state.pollTimer = setInterval(checkHealth, 3000);
}

async function checkHealth() {
  try {
    await api("/health");
  } catch (_) {
    /* still down: the banner stays */
  }
}

// -- threads -------------------------------------------------------------------------------
async function loadThreads() {
  const data = await getJson("/api/v1/threads?limit=100");
  state.threads = data.threads;
  renderThreads();
}

function renderThreads() {
  const list = $("thread-list");
  list.replaceChildren();
  for (const thread of state.threads) {
    const current = thread.thread_id === state.threadId;
    list.append(el("li", {},
      el("button", {
        type: "button", "aria-current": current ? "true" : "false", title: thread.title,
        dataset: { threadId: thread.thread_id },
        onclick: () => openThread(thread.thread_id).catch(handleError),
      }, thread.title || thread.thread_id,
      el("span", { className: "meta" }, `${thread.turns} turn${thread.turns === 1 ? "" : "s"} · ${ago(thread.updated_at)}`))));
  }
  $("threads-empty").hidden = state.threads.length > 0;
  const known = state.threads.find((t) => t.thread_id === state.threadId);
  if (known) $("thread-title").textContent = known.title || known.thread_id;
}

function setThread(threadId, title) {
  state.threadId = threadId;
  for (const id of ["history-button", "rename-button", "delete-button"]) $(id).disabled = !threadId;
  $("thread-title").textContent = title || (threadId ? threadId : "New chat");
  history.replaceState(null, "", threadId ? `#thread=${encodeURIComponent(threadId)}` : location.pathname);
  for (const button of $("thread-list").querySelectorAll("button")) {
    button.setAttribute("aria-current", button.dataset.threadId === threadId ? "true" : "false");
  }
}

/** Show a thread; ``refresh``: the same thread again (its answer came), leaving the panels as they are. */
async function openThread(threadId, { refresh = false } = {}) {
  const thread = await getJson(`/api/v1/threads/${encodeURIComponent(threadId)}`);
  setThread(thread.thread_id, thread.title);
  if (!refresh) hideHistory();
  clearMessages();
  for (const message of thread.messages) {
    if (message.role === "user") addUserMessage(message.content, { interrupted: message.interrupted });
    else if (message.role === "assistant") new AnswerView({ text: message.content });
  }
  const shown = thread.messages.filter((m) => m.role === "user" || m.role === "assistant");
  const following = attachLive(thread.thread_id, shown);
  if (!refresh) closeSidebar();
  scrollDown(true);
  await showPendingApprovals(thread.thread_id);
  const last = shown[shown.length - 1];
  if (thread.thread_id === state.threadId && last && last.role === "user" && !last.interrupted && !following
      && !$("messages").querySelector(".approvals")) {
    awaitAnswer(thread.thread_id, shown.length);
  }
}

/**
 * The thread ends with a question this page is not following: its turn runs on the server (the page
 * was reloaded mid-answer, or another tab asked). Say so, and show the thread again once its answer
 * (or a pause for approval) is stored.
 */
function awaitAnswer(threadId, count) {
  const note = el("div", { className: "msg assistant waiting", role: "status" },
    el("div", { className: "who" }, "Cadence"),
    el("div", { className: "muted" }, "Still answering on the server (asked before this page loaded, or in "
      + "another tab); the answer appears here when it is done."));
  $("messages").append(note);
  scrollDown();
  const poll = async () => {
    if (!note.isConnected || state.threadId !== threadId) return;
    try {
      const [thread, pause] = await Promise.all([
        getJson(`/api/v1/threads/${encodeURIComponent(threadId)}`),
        getJson(HITL.approvalsPath(threadId)).catch(() => ({})),
      ]);
      if (!note.isConnected || state.threadId !== threadId) return;
      const shown = thread.messages.filter((m) => m.role === "user" || m.role === "assistant");
      if (shown.length !== count || pause.interrupted) {
        await openThread(threadId, { refresh: true });
        return;
      }
    } catch (err) {
      if (err instanceof ApiError && err.status !== 0) return; // gone (deleted), or the key changed
      // else the server is away for a moment (the banner says so): try again
    }
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
}

/**
 * Back on the thread of the turn under way (the user looked at another thread meanwhile): its question
 * and its answer (streaming, or finished after this thread was fetched) are shown again in place of
 * the stored question, so the answer is not lost until a reload. True when its answer is shown so
 * (streaming or done, not cut off).
 */
function attachLive(threadId, shown) {
  const live = state.live;
  if (!live || !live.threadId || live.threadId !== threadId) return false;
  const last = shown[shown.length - 1];
  const lastIsQuestion = live.text !== null && last && last.role === "user" && last.content === live.text;
  if ((live.view.finished || live.view.failed) && !lastIsQuestion) return false; // the stored thread has it
  if (lastIsQuestion) $("messages").lastElementChild.remove();
  if (live.question) $("messages").append(live.question);
  $("messages").append(live.view.node);
  return !live.view.failed;
}

/** Follow a turn (see ``state.live``) until the next one starts. */
function followTurn(threadId, text, question, view) {
  state.live = { threadId, text, question, view };
}

/** A paused thread shows the calls it waits for (GET .../approvals; nothing on a server without it). */
async function showPendingApprovals(threadId) {
  let data;
  try {
    data = await getJson(HITL.approvalsPath(threadId));
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") return; // no such endpoint here
    throw err;
  }
  if (threadId === state.threadId && data.interrupted && (data.approvals || []).length) {
    const last = [...$("messages").querySelectorAll(".msg.assistant")].pop();
    renderApprovals(data.approvals, last ? { node: last } : null);
  }
}

function newThread() {
  setThread(null);
  hideHistory();
  clearMessages();
  closeSidebar();
  $("message-input").focus();
}

// -- sending: streamed tokens, with the JSON endpoint as fallback ---------------------------
function clearMessages() {
  $("messages").replaceChildren($("empty-hint"));
  $("empty-hint").hidden = false;
}

/**
 * Keep the conversation at its end as text arrives, unless the user has scrolled up to read (a long
 * answer streaming); ``force`` (a thread opened, a message sent) goes to the end and follows again.
 */
function scrollDown(force = false) {
  const box = $("messages");
  if (force) state.followEnd = true;
  if (state.followEnd) box.scrollTop = box.scrollHeight;
}

/** Whether the conversation is scrolled to (about) its end. */
function atEnd(box) {
  return box.scrollHeight - box.scrollTop - box.clientHeight < 40;
}

function addUserMessage(text, { interrupted = false } = {}) {
  $("empty-hint").hidden = true;
  const node = el("div", { className: `msg user${interrupted ? " interrupted" : ""}` },
    el("div", { className: "who" }, "You"), el("div", { className: "text" }, text));
  $("messages").append(node);
  scrollDown(true);
  return node;
}

function streamingSupported() {
  return typeof ReadableStream !== "undefined" && typeof TextDecoderStream !== "undefined";
}

/** One turn starts (true) or ends (false); the page is busy while any runs (a resume in another thread too). */
function setBusy(busy) {
  state.turns = Math.max(0, (state.turns || 0) + (busy ? 1 : -1));
  busy = state.turns > 0;
  state.busy = busy;
  $("send-button").disabled = busy;
  $("send-button").textContent = busy ? "Sending…" : "Send";
  $("messages").setAttribute("aria-busy", busy ? "true" : "false");
}

async function send(text) {
  if (state.busy || !text.trim()) return;
  const payload = { message: text, tone: $("tone-select").value || undefined, mode: $("mode-select").value || undefined };
  if (payload.mode === SINGLE_MODE && $("agent-select").value) payload.agent = $("agent-select").value;
  if (state.threadId) payload.thread_id = state.threadId;
  hideBanner();
  state.sent += 1;
  const question = addUserMessage(text);
  const view = new AnswerView({ streaming: true });
  view.threadId = state.threadId;
  followTurn(state.threadId, text, question, view);
  setBusy(true);
  try {
    const stream = $("stream-toggle").checked && streamingSupported() && !state.streamUnavailable;
    if (stream) await sendStreaming(payload, view);
    else await sendJson(payload, view);
  } catch (err) {
    if (!view.started) {
      // Rejected before the turn ran (server down, 401, 409, 422): give the text back to resend.
      question.remove();
      view.node.remove();
      state.live = null;
      if (!$("message-input").value) $("message-input").value = text;
      if (!$("messages").querySelector(".msg")) $("empty-hint").hidden = false;
    } else {
      view.fail(err);
    }
    handleError(err);
    const unseen = err instanceof ApiError && payload.thread_id === state.threadId && (
      (err.code === "approval_pending" && !$("messages").querySelector(".approvals button:enabled"))
      || (err.code === "thread_busy" && !$("messages").querySelector(".msg.waiting")));
    if (!view.started && unseen) {
      // a turn this page did not see (another tab, the API) paused or runs there: show the thread again,
      // with the calls to decide, or saying its answer is being written (it appears when done)
      openThread(payload.thread_id).catch(handleError);
    }
  } finally {
    setBusy(false);
  }
  loadThreads().catch(() => {});
  loadMemories().catch(() => {}); // the turn may have remembered something
}

/** POST and read a JSON answer; a 502/504 that carries the turn's fallback answer and trace counts as one. */
async function postForAnswer(path, body) {
  try {
    return await (await api(path, { method: "POST", body })).json();
  } catch (err) {
    if (err instanceof ApiError && err.body && typeof err.body.response === "string") return { ...err.body };
    throw err;
  }
}

async function sendJson(payload, view) {
  const data = await postForAnswer("/api/v1/chat", payload);
  view.started = true;
  adoptThread(data.thread_id, payload.message, view);
  view.finish(data);
}

async function sendStreaming(payload, view) {
  let response;
  try {
    response = await api("/api/v1/chat/stream", { method: "POST", body: payload });
  } catch (err) {
    if (err instanceof ApiError && [404, 405, 501].includes(err.status)) {
      // The streaming endpoint is not reachable here (e.g. a proxy): answer whole instead.
      state.streamUnavailable = true;
      showBanner("Streaming is unavailable on this connection; answers arrive whole.", { kind: "info" });
      return sendJson(payload, view);
    }
    throw err;
  }
  view.started = true;
  adoptThread(response.headers.get("X-Cadence-Thread-Id"), payload.message, view);
  await readStream(response, view);
}

/** Feed a text/event-stream response's events to ``view`` as they arrive. */
async function readStream(response, view) {
  if (!response.body) {
    for (const event of parseSse(await response.text()).events) view.event(event);
  } else {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const parsed = parseSse(buffer + value);
        buffer = parsed.rest;
        for (const event of parsed.events) view.event(event);
      }
    } catch (_) {
      throw new ApiError(0, "stream_cut", "The connection to the server dropped during the answer.");
    }
  }
  if (!view.finished) {
    throw new ApiError(0, "stream_cut", "The stream ended before the answer was complete.");
  }
}

/** Complete `event:`/`data:` blocks of a text/event-stream, and the incomplete rest. */
function parseSse(text) {
  const normalised = text.replace(/\r\n/g, "\n");
  const blocks = normalised.split("\n\n");
  const rest = blocks.pop();
  const events = [];
  for (const block of blocks) {
    const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart());
    if (data.length) {
      try {
        events.push(JSON.parse(data.join("\n")));
      } catch (_) {
        /* not one of Cadence's events */
      }
    }
  }
  return { events, rest };
}

/**
 * The turn named its thread: a new one becomes current (unless the user has opened another thread
 * meanwhile), titled by its first message, and is listed at once so it can be opened again mid-turn.
 */
function adoptThread(threadId, firstMessage, view) {
  if (!threadId) return;
  view.threadId = threadId;
  if (state.live && state.live.view === view) state.live.threadId = threadId;
  if (threadId === state.threadId || !view.node.isConnected) return;
  setThread(threadId, titleOf(firstMessage || threadId));
  loadThreads().catch(() => {});
}

/** A title as the server makes it from a first message: whitespace collapsed, 80 characters at most. */
function titleOf(text) {
  const collapsed = String(text).replace(/\s+/g, " ").trim();
  return collapsed.length <= 80 ? collapsed : `${collapsed.slice(0, 79).trimEnd()}…`;
}

// -- answers and their trace ---------------------------------------------------------------
function describeEvent(event) {
  switch (event.type) {
    case "node": return `node ${event.node}`;
    case "agent_start": return `→ ${event.agent} agent (hop ${event.hop})`;
    case "agent_end": return `← ${event.agent} agent done`;
    case "tool_start": return `${event.agent}: ${event.name}(${JSON.stringify(event.args)})`;
    case "tool_end": return `${event.name} ${event.error ? "failed" : "returned"} in ${ms(event.duration_ms)}`;
    case "suspend": return `suspended: ${(event.reason && event.reason.code) || "guard"}`;
    case "error": return `error: ${(event.error && event.error.message) || "unknown"}`;
    case "interrupt": return `paused: ${(event.approvals || []).length} call(s) wait for approval`;
    default: return event.type;
  }
}

class AnswerView {
  /** One answer bubble: streamed text, a live step line, then the trace panel. */
  constructor({ text = "", streaming = false } = {}) {
    $("empty-hint").hidden = true;
    this.text = el("div", { className: "text" }, text);
    this.status = el("div", { className: "muted status" });
    this.node = el("div", { className: `msg assistant${streaming ? " streaming" : ""}`, dataset: { tokens: "0" } },
      el("div", { className: "who" }, "Cadence"), this.text, this.status);
    this.steps = [];
    this.tokens = 0;
    this.started = false;
    this.finished = false;
    this.failed = false;
    $("messages").append(this.node);
    scrollDown();
  }

  event(event) {
    if (event.type === "token") {
      // another node's text (a supervisor-mode agent's answer, then the final answer) starts afresh
      if (this.tokens === 0 || event.node !== this.tokenNode) this.text.textContent = "";
      this.tokenNode = event.node;
      this.tokens += 1;
      this.node.dataset.tokens = String(this.tokens);
      this.text.textContent += event.text || "";
      scrollDown();
      return;
    }
    if (event.type === "final") {
      this.finish(event);
      return;
    }
    this.steps.push(event);
    this.status.textContent = describeEvent(event);
    if (event.type === "interrupt") renderApprovals(event.approvals || [], this);
  }

  finish(final) {
    this.finished = true;
    this.node.classList.remove("streaming");
    this.status.textContent = "";
    if (typeof final.response === "string" && final.response) this.text.textContent = final.response;
    if (final.error) this.showError(final.error.message || String(final.error));
    if (final.trace) this.node.append(renderTrace(final.trace, this.steps));
    const pending = final.approvals || (final.interrupted ? final.pending_approvals : null);
    if (Array.isArray(pending) && pending.length && !this.node.querySelector(".approvals")) {
      renderApprovals(pending, this);
    }
    scrollDown();
  }

  showError(message) {
    this.node.classList.add("error");
    this.node.append(el("div", { className: "error-text", role: "note" }, message));
  }

  fail(err) {
    this.failed = true;
    this.node.classList.remove("streaming");
    this.status.textContent = "";
    this.showError(err.message);
    const threadId = this.threadId || state.threadId;
    if (err.code === "stream_cut" && threadId) {
      this.node.append(el("button", { type: "button", className: "link-button",
        onclick: () => openThread(threadId).catch(handleError) }, "Reload the thread"));
    }
  }
}

function table(headers, rows) {
  return el("div", { className: "table-wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c)))))));
}

function definitionList(pairs) {
  return el("dl", {}, pairs.filter(([, v]) => v !== undefined && v !== null && v !== "")
    .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

/** The trace panel of one answer: route, agents, tools, model calls, tokens, suspend/deadline, validation. */
function renderTrace(trace, steps) {
  const usage = trace.usage || {};
  const tools = trace.tools_used || [];
  const calls = trace.model_calls || [];
  const route = trace.routing_history || [];
  const summary = [
    route.length ? `${route.length} agent${route.length === 1 ? "" : "s"}` : "no agent",
    `${tools.length} tool${tools.length === 1 ? "" : "s"}`,
    `${usage.total_tokens || 0} tokens`,
    ms(trace.duration_ms),
  ].join(" · ");
  const body = el("div", { className: "trace-body" });
  body.append(definitionList([
    ["Mode", trace.mode],
    ["Tone", trace.tone],
    ["Route", route.length ? route.join(" → ") : "answered without an agent"],
    ["Agent hops", trace.agent_hops],
    ["Tool hops", trace.tool_hops],
    ["Tokens", `${usage.input_tokens || 0} in · ${usage.output_tokens || 0} out · ${usage.total_tokens || 0} total`],
    ["Duration", ms(trace.duration_ms)],
  ]));
  if (trace.suspended) {
    const details = trace.suspend_details ? ` ${JSON.stringify(trace.suspend_details)}` : "";
    body.append(el("h4", {}, "Suspended"), el("p", { className: "verdict-bad" }, `${trace.suspend_reason}${details}`));
  }
  const deadline = (trace.errors || []).filter((e) => e.code === "turn_timeout");
  if (deadline.length) {
    body.append(el("h4", {}, "Deadline"), el("p", { className: "verdict-bad" }, deadline.map((e) => e.message).join(" ")));
  }
  if (tools.length) {
    body.append(el("h4", {}, "Tools"), table(["Agent", "Tool", "Arguments", "Result", "Time"], tools.map((t) => [
      t.agent, t.name || t.tool, el("pre", {}, json(t.args)),
      t.error ? el("pre", { className: "verdict-bad" }, t.error) : el("pre", {}, t.result ?? ""),
      ms(t.duration_ms),
    ])));
  }
  if (calls.length) {
    body.append(el("h4", {}, "Model calls"), table(["Node", "Model", "Tokens in/out", "Time", "Attempts"], calls.map((c) => [
      c.node, c.model, `${c.input_tokens}/${c.output_tokens}`, ms(c.duration_ms),
      c.error ? `${c.attempts} (${c.error})` : String(c.attempts),
    ])));
  }
  for (const record of trace.validation || []) {
    const verdict = record.verdict || {};
    const problems = (verdict.problems || []).join(", ");
    body.append(el("h4", {}, `Validation (${record.node}, ${record.mode})`),
      el("p", { className: verdict.ok ? "verdict-ok" : "verdict-bad" },
        verdict.ok ? "passed" : `problems: ${problems || "unknown"}`,
        record.corrected ? " · corrected" : "",
        (record.draft_problems || []).length ? ` · first draft: ${record.draft_problems.join(", ")}` : "",
        (verdict.details || []).length ? ` · ${verdict.details.join("; ")}` : ""));
  }
  const errors = (trace.errors || []).filter((e) => e.code !== "turn_timeout");
  if (errors.length) {
    body.append(el("h4", {}, "Errors"), el("ul", {}, errors.map((e) => el("li", {}, `${e.node}: ${e.code}: ${e.message}`))));
  }
  if ((trace.notes || []).length) body.append(el("h4", {}, "Notes"), el("ul", {}, trace.notes.map((n) => el("li", {}, n))));
  if (steps && steps.length) {
    body.append(el("h4", {}, "Steps as they happened"), el("ol", { className: "steps" }, steps.map((s) => el("li", {}, describeEvent(s)))));
  }
  body.append(el("details", {}, el("summary", {}, "Raw trace (JSON)"), el("pre", {}, json(trace))));
  return el("details", { className: "trace" }, el("summary", {}, `Trace · ${summary}`), body);
}

// -- human in the loop: approvals and checkpoint history (issue 11's endpoints) -------------
// Extension points, in one place: the request bodies and the fields read from the answers.
const HITL = {
  approvalsPath: (threadId) => `/api/v1/threads/${encodeURIComponent(threadId)}/approvals`,
  resumePath: (threadId) => `/api/v1/threads/${encodeURIComponent(threadId)}/resume`,
  resumeBody: (decisions, stream) => ({ decisions, stream }),
  historyPath: (threadId) => `/api/v1/threads/${encodeURIComponent(threadId)}/history`,
  forkPath: (threadId) => `/api/v1/threads/${encodeURIComponent(threadId)}/fork`,
  forkBody: (checkpoint) => ({ checkpoint_id: checkpoint.checkpoint_id || checkpoint.id }),
  checkpoints: (data) => data.checkpoints || data.history || (Array.isArray(data) ? data : []),
};

/** Pending approvals decided inline: approve, reject (with a message) or edit the arguments. */
function renderApprovals(approvals, view) {
  const decisions = {};
  const box = el("section", { className: "approvals", "aria-label": "Approvals needed" },
    el("h3", {}, approvals.length === 1 ? "1 call waits for your approval" : `${approvals.length} calls wait for your approval`));
  const submit = async () => {
    if (Object.keys(decisions).length < approvals.length) return;
    for (const button of box.querySelectorAll("button, textarea, input")) button.disabled = true;
    const threadId = state.threadId;
    const answer = new AnswerView({ streaming: true });
    answer.threadId = threadId;
    followTurn(threadId, null, null, answer);
    setBusy(true);
    try {
      const stream = $("stream-toggle").checked && streamingSupported() && !state.streamUnavailable;
      const path = HITL.resumePath(threadId);
      if (stream) {
        const response = await api(path, { method: "POST", body: HITL.resumeBody(decisions, true) });
        answer.started = true;
        await readStream(response, answer);
      } else {
        const data = await postForAnswer(path, HITL.resumeBody(decisions, false));
        answer.started = true;
        answer.finish(data);
      }
    } catch (err) {
      answer.fail(err);
      for (const button of box.querySelectorAll("button, textarea, input")) button.disabled = false;
      handleError(err);
    } finally {
      setBusy(false);
    }
    loadThreads().catch(() => {});
    loadMemories().catch(() => {}); // a paused turn remembers when it ends, i.e. here
  };
  for (const pending of approvals) {
    const id = pending.id;
    const outcome = el("span", { className: "decided", "aria-live": "polite" });
    const editor = el("textarea", { rows: 4, "aria-label": `Arguments for ${pending.tool}`, hidden: true }, json(pending.arguments || {}));
    const reason = el("input", { type: "text", placeholder: "Why not? (the agent reads this)", "aria-label": `Reason to reject ${pending.tool}`, hidden: true });
    const confirmEdit = el("button", { type: "button", hidden: true }, "Run with these arguments");
    const confirmReject = el("button", { type: "button", className: "danger", hidden: true }, "Reject the call");
    const decide = (decision, label) => {
      decisions[id] = decision;
      outcome.textContent = label;
      submit();
    };
    confirmEdit.addEventListener("click", () => {
      let args;
      try {
        args = JSON.parse(editor.value);
      } catch (err) {
        outcome.textContent = `The arguments are not valid JSON: ${err.message}`;
        return;
      }
      if (args === null || typeof args !== "object" || Array.isArray(args)) {
        outcome.textContent = "The arguments must be a JSON object: {\"name\": value, …}.";
        return;
      }
      decide({ decision: "edit", arguments: args }, "Edited");
    });
    confirmReject.addEventListener("click", () => decide({ decision: "reject", message: reason.value || undefined }, "Rejected"));
    // the keyboard: Enter in the reason rejects, Ctrl/Cmd+Enter in the arguments runs the edited call
    reason.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.isComposing) {
        event.preventDefault();
        confirmReject.click();
      }
    });
    editor.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        confirmEdit.click();
      }
    });
    box.append(el("div", { className: "approval", dataset: { callId: id } },
      el("div", {}, el("strong", {}, `${pending.agent} → ${pending.tool}`), pending.reason ? ` — ${pending.reason}` : ""),
      el("pre", {}, json(pending.arguments || {})),
      el("div", { className: "row" },
        el("button", { type: "button", className: "primary", onclick: () => decide({ decision: "approve" }, "Approved") }, "Approve"),
        el("button", { type: "button", onclick: () => { reason.hidden = false; confirmReject.hidden = false; reason.focus(); } }, "Reject…"),
        el("button", { type: "button", onclick: () => { editor.hidden = false; confirmEdit.hidden = false; editor.focus(); } }, "Edit…"),
        outcome),
      reason, confirmReject, editor, confirmEdit));
  }
  (view ? view.node : $("messages")).append(box);
  scrollDown();
}

function hideHistory() {
  $("history-panel").hidden = true;
  $("history-button").setAttribute("aria-expanded", "false");
}

async function toggleHistory() {
  if (!$("history-panel").hidden) {
    hideHistory();
    return;
  }
  let data;
  try {
    data = await getJson(HITL.historyPath(state.threadId));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === "not_found") {
      showBanner("This server has no checkpoint history endpoint.", { kind: "info" });
      return;
    }
    throw err;
  }
  const list = $("history-list");
  list.replaceChildren();
  const checkpoints = HITL.checkpoints(data);
  for (const checkpoint of checkpoints) {
    const next = checkpoint.next || [];
    list.append(el("li", { dataset: { checkpointId: checkpoint.checkpoint_id || checkpoint.id } },
      el("div", { className: "row" },
        el("strong", {}, `step ${checkpoint.step ?? "?"}`),
        el("span", {}, `${checkpoint.node || checkpoint.source || ""}${next.length ? ` → ${next.join(", ")}` : " (end of turn)"}`),
        (checkpoint.approvals || []).length ? el("span", { className: "badge warn" }, "waiting for approval") : null,
        next.length ? el("button", { type: "button", onclick: () => runFrom(checkpoint).catch(handleError) }, "Run again from here") : null),
      el("ul", { className: "steps" }, (checkpoint.messages || []).map((m) => el("li", {}, describeMessage(m))))));
  }
  if (!checkpoints.some((c) => (c.next || []).length)) {
    list.append(el("li", { className: "muted" }, "No checkpoint here has work left to run again: with "
      + "CADENCE_CHECKPOINT_DURABILITY=exit only the end of each turn (and each pause) is kept; "
      + "async or sync keeps every step."));
  }
  $("history-panel").hidden = false;
  $("history-button").setAttribute("aria-expanded", "true");
}

function describeMessage(message) {
  const calls = (message.tool_calls || []).map((c) => `${c.name}(${JSON.stringify(c.args || {})})`).join(", ");
  const text = String(message.content || "").replace(/\s+/g, " ").slice(0, 140);
  return `${message.role}${message.name ? ` ${message.name}` : ""}: ${calls || text}`;
}

/** Fork from a checkpoint: the thread continues from there; show the branch and the run's trace. */
async function runFrom(checkpoint) {
  hideHistory();
  const pending = new AnswerView({ streaming: true });
  setBusy(true);
  let data;
  try {
    data = await postForAnswer(HITL.forkPath(state.threadId), HITL.forkBody(checkpoint));
  } catch (err) {
    pending.fail(err);
    handleError(err);
    return;
  } finally {
    setBusy(false);
  }
  await openThread(data.thread_id || state.threadId);
  const last = [...$("messages").querySelectorAll(".msg.assistant")].pop();
  if (last && data.trace) last.append(renderTrace(data.trace, []));
  if (last && data.error) last.append(el("div", { className: "error-text", role: "note" }, data.error.message));
  loadThreads().catch(() => {});
  loadMemories().catch(() => {});
}

// -- the graph of the current mode, drawn as SVG (layered layout, no library) ---------------
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

/** Layers by longest path over the forward edges (a depth-first search finds the back edges); an
 * edge that spans layers (a back edge too, taken upwards) gets a waypoint in each layer it crosses,
 * so it is routed between the boxes. */
function layout(graph) {
  const ids = graph.nodes.map((n) => n.id);
  const known = new Set(ids);
  const edges = graph.edges.filter((e) => known.has(e.source) && known.has(e.target));
  const out = new Map(ids.map((id) => [id, []]));
  for (const edge of edges) out.get(edge.source).push(edge.target);
  const back = new Set();
  const visiting = new Set();
  const done = new Set();
  const visit = (id) => {
    visiting.add(id);
    for (const next of out.get(id)) {
      if (visiting.has(next)) back.add(`${id}\u0000${next}`);
      else if (!done.has(next)) visit(next);
    }
    visiting.delete(id);
    done.add(id);
  };
  if (out.has("__start__")) visit("__start__");
  for (const id of ids) if (!done.has(id)) visit(id);
  const isBack = (e) => e.source === e.target || back.has(`${e.source}\u0000${e.target}`);
  const layer = new Map(ids.map((id) => [id, 0]));
  for (let round = 0; round < ids.length; round += 1) {
    let changed = false;
    for (const edge of edges) {
      if (isBack(edge)) continue;
      const want = layer.get(edge.source) + 1;
      if (layer.get(edge.target) < want) {
        layer.set(edge.target, want);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const layers = [];
  for (const id of ids) (layers[layer.get(id)] ||= []).push(id);
  // waypoints of the edges that span layers (top-down: a back edge from its target to its source)
  const preds = new Map(ids.map((id) => [id, []]));
  const routes = new Map();
  edges.forEach((edge, index) => {
    if (edge.source === edge.target) return;
    const [top, bottom] = isBack(edge) ? [edge.target, edge.source] : [edge.source, edge.target];
    const chain = [top];
    for (let depth = layer.get(top) + 1; depth < layer.get(bottom); depth += 1) {
      const waypoint = `\u0001${index}:${depth}`;
      layers[depth].push(waypoint);
      layer.set(waypoint, depth);
      chain.push(waypoint);
    }
    chain.push(bottom);
    for (let i = 1; i < chain.length; i += 1) (preds.get(chain[i]) || preds.set(chain[i], []).get(chain[i])).push(chain[i - 1]);
    routes.set(edge, chain);
  });
  // order each layer by the mean position of its predecessors (fewer crossings)
  const position = new Map();
  layers.forEach((row, depth) => {
    if (depth > 0) {
      const score = (id) => {
        const placed = (preds.get(id) || []).filter((p) => position.has(p)).map((p) => position.get(p));
        return placed.length ? placed.reduce((a, b) => a + b, 0) / placed.length : 0;
      };
      const scores = new Map(row.map((id) => [id, score(id)]));
      row.sort((a, b) => scores.get(a) - scores.get(b));
    }
    row.forEach((id, index) => position.set(id, index - (row.length - 1) / 2));
  });
  return { layers, routes, isBack };
}

const isWaypoint = (id) => id.startsWith("\u0001");

function drawGraph(graph) {
  const { layers, routes, isBack } = layout(graph);
  const boxHeight = 30;
  const rowGap = 70;
  const colGap = 26;
  const width = (id) => (isWaypoint(id) ? 8 : Math.max(70, id.length * 7.2 + 24));
  const rowWidths = layers.map((row) => row.reduce((sum, id) => sum + width(id), 0) + colGap * (row.length - 1));
  const margin = 140;
  const total = Math.max(...rowWidths) + 2 * margin;
  const box = new Map();
  layers.forEach((row, depth) => {
    let x = (total - rowWidths[depth]) / 2;
    for (const id of row) {
      box.set(id, { x, y: 20 + depth * (boxHeight + rowGap), w: width(id), h: boxHeight });
      x += width(id) + colGap;
    }
  });
  const height = 40 + layers.length * (boxHeight + rowGap) - rowGap;
  const root = svg("svg", { width: total, height, viewBox: `0 0 ${total} ${height}`, role: "img",
    "aria-label": `Graph of the ${graph.mode} mode: ${graph.nodes.length} nodes, ${graph.edges.length} edges` });
  root.append(svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z" }))));
  for (const edge of graph.edges) {
    const a = box.get(edge.source);
    const b = box.get(edge.target);
    if (!a || !b) continue;
    let d;
    let label;
    if (edge.source === edge.target) {
      d = `M${a.x + a.w},${a.y + 8} c30,-20 30,34 0,14`;
      label = [a.x + a.w + 26, a.y + 10];
    } else {
      // top-down through the waypoints: bottom centre → each waypoint → top centre (reversed for a back edge)
      const chain = routes.get(edge).map((id) => box.get(id));
      const points = [[chain[0].x + chain[0].w / 2, chain[0].y + chain[0].h]];
      for (const w of chain.slice(1, -1)) points.push([w.x + w.w / 2, w.y], [w.x + w.w / 2, w.y + w.h]);
      const last = chain[chain.length - 1];
      points.push([last.x + last.w / 2, last.y]);
      if (isBack(edge)) points.reverse();
      d = `M${points[0][0]},${points[0][1]}`;
      for (let i = 1; i < points.length; i += 1) {
        const [x0, y0] = points[i - 1];
        const [x1, y1] = points[i];
        const mid = (y0 + y1) / 2;
        d += Math.abs(y1 - y0) > boxHeight ? ` C${x0},${mid} ${x1},${mid} ${x1},${y1}` : ` L${x1},${y1}`;
      }
      const at = Math.floor((points.length - 1) / 2);
      label = [(points[at][0] + points[at + 1][0]) / 2, (points[at][1] + points[at + 1][1]) / 2];
    }
    root.append(svg("path", { d, class: `edge${edge.conditional ? " conditional" : ""}`, "marker-end": "url(#arrow)" },
      svg("title", {}, `${edge.source} → ${edge.target}${edge.label ? ` (${edge.label})` : ""}`)));
    if (edge.label) root.append(svg("text", { x: label[0], y: label[1], class: "edge-label", "text-anchor": "middle" }, edge.label));
  }
  for (const [id, b] of box) {
    if (isWaypoint(id)) continue;
    const terminal = id === "__start__" || id === "__end__";
    root.append(svg("g", { class: `node${terminal ? " terminal" : ""}`, "data-node": id },
      svg("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: terminal ? 15 : 5 }),
      svg("text", { x: b.x + b.w / 2, y: b.y + b.h / 2 + 4, "text-anchor": "middle" }, terminal ? id.replaceAll("_", "") : id)));
  }
  return root;
}

async function showGraph() {
  const mode = $("mode-select").value;
  const graph = await getJson(`/api/v1/modes/${encodeURIComponent(mode)}/graph`);
  $("graph-title").textContent = `Graph of the ${graph.mode} mode`;
  $("graph-view").replaceChildren(drawGraph(graph));
  $("graph-mermaid").textContent = graph.mermaid;
  if (!$("graph-dialog").open) $("graph-dialog").showModal();
}

// -- plugins -------------------------------------------------------------------------------
async function loadPlugins() {
  const [plugins, ready] = await Promise.all([
    getJson("/api/v1/plugins"),
    fetch("/ready").then((r) => r.json()).catch(() => ({ checks: {} })),
  ]);
  const checks = ready.checks || {};
  fillAgents(plugins.plugins.filter((p) => p.status === "loaded").map((p) => p.name));
  const list = $("plugin-list");
  list.replaceChildren();
  for (const plugin of plugins.plugins) {
    const degraded = checks[`plugin:${plugin.name}`];
    let badge = el("span", { className: `badge ${plugin.status === "loaded" ? "ok" : plugin.status === "failed" ? "bad" : "warn"}` }, plugin.status);
    if (degraded) badge = el("span", { className: "badge warn", title: degraded }, "degraded");
    list.append(el("li", { dataset: { plugin: plugin.name } },
      el("strong", {}, plugin.name), plugin.version ? ` ${plugin.version}` : "", badge,
      el("span", { className: "desc" }, degraded || plugin.reason || plugin.description || "")));
  }
  if (!plugins.plugins.length) list.append(el("li", { className: "muted" }, "No plugins loaded."));
}

// -- long-term memories --------------------------------------------------------------------
/** The caller's memories (GET /api/v1/memories); a server with memory off says so here. */
async function loadMemories() {
  const list = $("memory-list");
  let data;
  try {
    data = await getJson("/api/v1/memories?limit=100");
  } catch (err) {
    if (err instanceof ApiError && (err.code === "memory_disabled" || err.status === 404)) {
      list.replaceChildren();
      $("memories-hint").textContent = err.code === "memory_disabled"
        ? "Long-term memory is off on this server (CADENCE_MEMORY)."
        : "This server keeps no long-term memory.";
      $("memories-empty").hidden = true;
      $("forget-all").hidden = true;
      return;
    }
    throw err;
  }
  $("memories-hint").textContent = data.enabled === false
    ? "Long-term memory is off on this server (CADENCE_MEMORY): nothing new is remembered."
    : "What Cadence remembers about you across conversations.";
  list.replaceChildren(...data.memories.map((memory) => el("li", { dataset: { memoryId: memory.id } },
    el("span", { className: "text", title: `${memory.kind} · ${new Date(memory.updated_at).toLocaleString()}` },
      el("span", { className: "kind" }, memory.kind), memory.text),
    el("button", {
      type: "button", className: "forget", "aria-label": `Forget: ${memory.text}`, title: "Forget this",
      onclick: () => forgetMemory(memory.id).catch(handleError),
    }, "×"))));
  $("memories-empty").hidden = data.memories.length > 0;
  $("forget-all").hidden = data.memories.length === 0;
}

/** Forget one memory (DELETE /api/v1/memories/{id}); one already gone is not an error. */
async function forgetMemory(memoryId) {
  try {
    await api(`/api/v1/memories/${encodeURIComponent(memoryId)}`, { method: "DELETE" });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === "memory_not_found")) throw err;
  }
  await loadMemories();
}

// -- modes, agents and tones ---------------------------------------------------------------
/** The mode that talks to one agent (the request's `agent`); the Agent picker shows only then. */
const SINGLE_MODE = "single";

/** The single mode's agents: the loaded plugins ("default" leaves it to CADENCE_AGENT). */
function fillAgents(names) {
  const select = $("agent-select");
  const chosen = select.value || localStorage.getItem("cadence.agent") || "";
  select.replaceChildren(el("option", { value: "" }, "default"), ...names.map((n) => el("option", { value: n }, n)));
  select.value = names.includes(chosen) ? chosen : "";
}

function showAgentPicker() {
  $("agent-picker").hidden = $("mode-select").value !== SINGLE_MODE;
}

async function loadModes() {
  const data = await getJson("/api/v1/modes");
  const fill = (select, values, preferred, fallback, describe) => {
    select.replaceChildren(...values.map((v) => el("option", { value: v, title: describe ? describe(v) : null }, v)));
    select.value = values.includes(preferred) ? preferred : fallback;
  };
  const descriptions = Object.fromEntries(data.modes.map((m) => [m.name, m.description]));
  fill($("mode-select"), data.modes.map((m) => m.name), localStorage.getItem("cadence.mode"), data.default_mode,
    (name) => descriptions[name]);
  fill($("tone-select"), data.tones, localStorage.getItem("cadence.tone"), "");
  // "auto" sends no tone: the server takes one the message asks for in words ("Be brief: ..."), else natural
  const auto = el("option", { value: "", title: `the one the message asks for, else ${data.default_tone}` }, "auto");
  $("tone-select").prepend(auto);
  const stored = localStorage.getItem("cadence.tone");
  $("tone-select").value = data.tones.includes(stored) ? stored : "";
  showAgentPicker();
}

// -- dialogs, keyboard and start-up --------------------------------------------------------
function askForKey(reason) {
  const dialog = $("key-dialog");
  if (reason) $("key-reason").textContent = reason;
  $("key-input").value = "";
  if (!dialog.open) dialog.showModal();
  $("key-input").focus();
}

function saveKey(key, remember) {
  state.key = key;
  sessionStorage.setItem("cadence.apiKey", key);
  if (remember) localStorage.setItem("cadence.apiKey", key);
  else localStorage.removeItem("cadence.apiKey");
}

function closeSidebar() {
  $("sidebar").classList.remove("open");
  $("menu-button").setAttribute("aria-expanded", "false");
}

/** The thread named in the address (``#thread=…``), if any. */
function threadInAddress() {
  const match = location.hash.match(/^#thread=(.+)$/);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1]; // a malformed escape ("%E0%A4%A"): the id as written, which no thread has
  }
}

/**
 * Load everything, then show the thread that was open (or named in the address) again — unless the
 * user moved on while the data loaded: a message sent meanwhile (its answer may still be streaming)
 * or another thread opened is never cleared away.
 */
async function reload() {
  const threadId = state.threadId || threadInAddress();
  const sent = state.sent;
  if (!(await loadAll()) || !threadId) return;
  if (state.sent !== sent || state.busy || (state.threadId && state.threadId !== threadId)) return;
  openThread(threadId).catch(handleError);
}

async function loadAll() {
  const results = await Promise.allSettled([loadModes(), loadThreads(), loadPlugins(), loadMemories()]);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) {
    handleError(failed.reason);
    return false;
  }
  hideBanner("auth");
  return true;
}

function bindUi() {
  const input = $("message-input");
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value;
    if (!text.trim() || state.busy) return;
    input.value = "";
    send(text);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("new-thread").addEventListener("click", newThread);
  $("messages").addEventListener("scroll", () => { state.followEnd = atEnd($("messages")); });
  $("menu-button").addEventListener("click", () => {
    const open = $("sidebar").classList.toggle("open");
    $("menu-button").setAttribute("aria-expanded", open ? "true" : "false");
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeSidebar();
  });
  $("banner-close").addEventListener("click", () => { $("banner").hidden = true; });
  $("mode-select").addEventListener("change", () => {
    localStorage.setItem("cadence.mode", $("mode-select").value);
    showAgentPicker();
    if ($("graph-dialog").open) showGraph().catch(handleError);
  });
  $("tone-select").addEventListener("change", () => localStorage.setItem("cadence.tone", $("tone-select").value));
  $("agent-select").addEventListener("change", () => localStorage.setItem("cadence.agent", $("agent-select").value));
  $("graph-button").addEventListener("click", () => showGraph().catch(handleError));
  $("graph-close").addEventListener("click", () => $("graph-dialog").close());
  $("plugins-refresh").addEventListener("click", () => loadPlugins().catch(handleError));
  $("memories-refresh").addEventListener("click", () => loadMemories().catch(handleError));
  $("forget-all").addEventListener("click", () => $("forget-dialog").showModal());
  $("forget-cancel").addEventListener("click", () => $("forget-dialog").close());
  $("forget-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("forget-dialog").close();
    try {
      await api("/api/v1/memories", { method: "DELETE" });
      await loadMemories();
    } catch (err) {
      handleError(err);
    }
  });
  $("history-button").addEventListener("click", () => toggleHistory().catch(handleError));

  $("key-button").addEventListener("click", () => askForKey("Enter the API key to use (CADENCE_API_KEYS)."));
  $("key-cancel").addEventListener("click", () => $("key-dialog").close());
  $("key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const bad = unsendableInKey($("key-input").value.trim());
    if (bad) {
      $("key-reason").textContent = `An API key cannot contain ${bad}: it cannot be sent in a request. `
        + "Type it again or paste it from CADENCE_API_KEYS as plain text.";
      $("key-input").focus();
      return;
    }
    saveKey($("key-input").value.trim(), $("key-remember").checked);
    $("key-dialog").close();
    await reload();
  });

  $("rename-button").addEventListener("click", () => {
    const known = state.threads.find((t) => t.thread_id === state.threadId);
    $("rename-input").value = known ? known.title : "";
    $("rename-dialog").showModal();
    $("rename-input").select();
  });
  $("rename-cancel").addEventListener("click", () => $("rename-dialog").close());
  $("rename-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("rename-dialog").close();
    try {
      const thread = await (await api(`/api/v1/threads/${encodeURIComponent(state.threadId)}`, {
        method: "PATCH", body: { title: $("rename-input").value },
      })).json();
      $("thread-title").textContent = thread.title;
      await loadThreads();
    } catch (err) {
      handleError(err);
    }
  });

  $("delete-button").addEventListener("click", () => {
    $("delete-name").textContent = $("thread-title").textContent;
    $("delete-dialog").showModal();
  });
  $("delete-cancel").addEventListener("click", () => $("delete-dialog").close());
  $("delete-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("delete-dialog").close();
    try {
      await api(`/api/v1/threads/${encodeURIComponent(state.threadId)}`, { method: "DELETE" });
      newThread();
      await loadThreads();
    } catch (err) {
      handleError(err);
    }
  });
}

async function start() {
  bindUi();
  if (state.key) $("key-button").hidden = false;
  await reload();
  document.body.dataset.ready = "true";
}

start();
