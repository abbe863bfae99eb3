// The harness's in-page probe, injected with addInitScript before any page script runs.
//
// It records, in page order, what the page really did: every request the page starts
// (fetch, XHR, sendBeacon) with a snapshot of the business view at that instant; the
// approval / handoff / highlight UI appearing and disappearing; the page's business view
// changing; clicks and input events on decision buttons
// and bound elements; every programmatic write into an input (value setter,
// setAttribute("value"), setRangeText, execCommand); and the runtime's own `pling:event`
// reports. Entries go to the exposed binding (so they survive reloads), a task's entries in
// one call, and stay in
// `window.__plingProbe.entries` for the current document.
//
// Ordering matters more than anything here: a MutationObserver delivers its records in a
// later microtask, so before logging a request, a write, a click or a runtime event the
// probe flushes pending DOM records first. The log is therefore causally ordered: an
// approval that was on screen when a request left is logged before that request.
//
// The business view is the tutorial's (`page.business_view` in its tutorial.json): the
// harness sets `window.__plingProbeConfig = {businessView: {name: {testid, attribute}}}`
// in the same init script, just before this file; a value without an attribute is the
// element's trimmed text, an absent element null.
/**
 * @typedef {{doc: string, seq: number, kind: string, data: unknown}} ProbeEntry
 * @typedef {{testid: string | null, attributes: Record<string, string | null>,
 *            buttons?: (string | null)[], box?: {x: number, y: number, width: number, height: number}}} UiInfo
 * @typedef {{testid: string, attribute?: string | null}} ShownValue
 * @typedef {{businessView?: Record<string, ShownValue>}} ProbeConfig
 * @typedef {Window & {__plingProbe?: {docId: string, entries: ProbeEntry[]},
 *            __plingProbeReport?: (entries: ProbeEntry[]) => unknown,
 *            __plingProbeConfig?: ProbeConfig}} ProbedWindow
 */
(() => {
  "use strict";
  const probed = /** @type {ProbedWindow} */ (window);
  if (window.top !== window || probed.__plingProbe) return;

  const BINDING_NAME = "__plingProbeReport";
  // UI whose appearance and disappearance the guarantees reason about.
  const WATCHED_UI = "pling-approval,pling-handoff,pling-highlight".split(",");
  const WATCHED_SELECTOR = WATCHED_UI.map((id) => `[data-testid="${id}"]`).join(",");
  // Request bodies longer than this are cut; model requests stay well below it.
  const MAX_BODY_CHARS = 262144;

  const docId = Math.random().toString(36).slice(2, 10);
  /** @type {ProbeEntry[]} */
  const entries = [];
  let nextSeq = 0;
  // Entries logged in one task go to the binding together, at the end of that task (a
  // microtask: no timer, so the paused clock cannot hold them back, and no later task such
  // as an unload can come first): one call into the harness instead of one per entry.
  /** @type {ProbeEntry[]} */
  let unsent = [];
  const sendUnsent = () => {
    const batch = unsent;
    unsent = [];
    const send = probed[BINDING_NAME];
    if (typeof send === "function") {
      try { send(batch); } catch { /* the in-page copy is still read by the harness */ }
    }
  };
  /** @param {string} kind @param {unknown} data */
  const report = (kind, data) => {
    const entry = { doc: docId, seq: nextSeq++, kind, data };
    entries.push(entry);
    if (unsent.push(entry) === 1) queueMicrotask(sendUnsent);
  };
  Object.defineProperty(probed, "__plingProbe", {
    value: Object.freeze({ docId, entries }),
    enumerable: false,
  });

  /** @param {Element} element */
  const attributesOf = (element) => {
    /** @type {Record<string, string | null>} */
    const attributes = {};
    for (const name of element.getAttributeNames()) {
      if (name.startsWith("data-")) attributes[name] = element.getAttribute(name);
    }
    return attributes;
  };
  /** @param {Element} element */
  const isShown = (element) =>
    element.isConnected &&
    (typeof element.checkVisibility !== "function" || element.checkVisibility());
  const businessView = Object.entries((probed.__plingProbeConfig || {}).businessView || {});
  /** @param {ShownValue} shown */
  const valueOf = ({ testid, attribute }) => {
    const element = document.querySelector(`[data-testid="${CSS.escape(testid)}"]`);
    if (!element) return null;
    return attribute ? element.getAttribute(attribute) : (element.textContent || "").trim();
  };
  // The page's business view as the user sees it (all null on pages without it).
  const businessState = () => {
    /** @type {Record<string, string | null>} */
    const view = {};
    for (const [name, shown] of businessView) view[name] = valueOf(shown);
    return view;
  };
  const shownUi = () => {
    const ui = [];
    for (const element of document.querySelectorAll(WATCHED_SELECTOR)) {
      if (isShown(element)) ui.push({ testid: element.getAttribute("data-testid"), ...attributesOf(element) });
    }
    return ui;
  };

  // ---- DOM: watched UI appear / disappear, business state changes -------------------------
  /** @type {Map<Element, UiInfo>} */
  let shown = new Map();
  /** @type {string | null} */
  let lastState = null;
  /** @param {Element} element @returns {UiInfo} */
  const describeElement = (element) => {
    /** @type {UiInfo} */
    const info = { testid: element.getAttribute("data-testid"), attributes: attributesOf(element) };
    if (info.testid === "pling-approval") {
      info.buttons = [...element.querySelectorAll("[data-testid]")]
        .map((button) => button.getAttribute("data-testid"))
        .filter((testid) => /^pling-(approve|deny)/.test(testid ?? ""));
    }
    if (info.testid === "pling-highlight") {
      const box = element.getBoundingClientRect();
      info.box = { x: box.x, y: box.y, width: box.width, height: box.height };
    }
    return info;
  };
  const scan = () => {
    /** @type {Map<Element, UiInfo>} */
    const now = new Map();
    for (const element of document.querySelectorAll(WATCHED_SELECTOR)) {
      if (isShown(element)) now.set(element, shown.get(element) || describeElement(element));
    }
    for (const [element, info] of shown) {
      if (!now.has(element)) report("disappear", { testid: info.testid, attributes: info.attributes });
    }
    for (const [element, info] of now) {
      if (!shown.has(element)) report("appear", info);
    }
    shown = now;
    const state = businessState();
    const key = JSON.stringify(state);
    if (key !== lastState) {
      if (lastState !== null || Object.values(state).some((value) => value !== null)) {
        report("state", state);
      }
      lastState = key;
    }
  };
  const observer = new MutationObserver(() => scan());
  const flush = () => {
    if (observer.takeRecords().length > 0) scan();
  };
  const startObserving = () => {
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    scan();
  };
  if (document.documentElement) startObserving();
  else document.addEventListener("readystatechange", startObserving, { once: true });

  // ---- requests the page starts ----------------------------------------------------------
  /** @param {unknown} url */
  const pathOf = (url) => {
    try {
      const parsed = new URL(String(url), location.href);
      return parsed.origin === location.origin ? parsed.pathname + parsed.search : parsed.href;
    } catch {
      return String(url);
    }
  };
  /** @param {unknown} body */
  const bodyText = (body) => {
    if (body === undefined || body === null) return null;
    const text = typeof body === "string" ? body : `<${Object.prototype.toString.call(body).slice(8, -1)}>`;
    return text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) : text;
  };
  let nextRequestId = 1;
  /** @param {string} via @param {unknown} method @param {unknown} url @param {unknown} body */
  const recordRequest = (via, method, url, body) => {
    flush();
    const id = nextRequestId++;
    report("request", {
      id, via, method: String(method || "GET").toUpperCase(), path: pathOf(url),
      body: bodyText(body), state: businessState(), ui: shownUi(),
    });
    return id;
  };

  const originalFetch = window.fetch;
  /** @type {typeof window.fetch} */
  window.fetch = function fetch(input, init) {
    const isRequest = typeof Request === "function" && input instanceof Request;
    const method = (init && init.method) || (isRequest ? input.method : "GET");
    const url = isRequest ? input.url : input;
    const body = init && "body" in init ? init.body : isRequest ? "<Request body>" : undefined;
    const id = recordRequest("fetch", method, url, body);
    return originalFetch.call(this, input, init).then(
      (response) => { flush(); report("response", { id, status: response.status }); return response; },
      (error) => { flush(); report("response", { id, status: null, error: String(error) }); throw error; },
    );
  };

  const xhrOpen = XMLHttpRequest.prototype.open;
  const xhrSend = XMLHttpRequest.prototype.send;
  /** @type {WeakMap<XMLHttpRequest, {method: string, url: string | URL}>} */
  const xhrTarget = new WeakMap();
  /** @type {(this: XMLHttpRequest, method: string, url: string | URL, ...rest: unknown[]) => void} */
  const open = function open(method, url) {
    xhrTarget.set(this, { method, url });
    return Reflect.apply(xhrOpen, this, arguments);
  };
  XMLHttpRequest.prototype.open = /** @type {typeof xhrOpen} */ (open);
  /** @type {typeof xhrSend} */
  XMLHttpRequest.prototype.send = function send(body) {
    const target = xhrTarget.get(this) || { method: "GET", url: "" };
    const id = recordRequest("xhr", target.method, target.url, body);
    this.addEventListener("loadend", () => report("response", { id, status: this.status }));
    return xhrSend.call(this, body);
  };
  if (navigator.sendBeacon) {
    const sendBeacon = navigator.sendBeacon;
    /** @type {typeof sendBeacon} */
    navigator.sendBeacon = function beacon(url, data) {
      recordRequest("beacon", "POST", url, data);
      return sendBeacon.call(this, url, data);
    };
  }

  // ---- programmatic writes into inputs ---------------------------------------------------
  // A user's typing (and Playwright's keyboard / fill) goes through input events, not
  // through these setters, so anything recorded here is page script writing a value.
  /** @param {Element} element @param {string} via @param {unknown} value */
  const recordWrite = (element, via, value) => {
    flush();
    reportWrite(element, via, value);
  };
  /** @param {Element} element @param {string} via @param {unknown} value */
  const reportWrite = (element, via, value) => {
    report("write", {
      via,
      target: element.getAttribute("data-pling-target"),
      testid: element.getAttribute("data-testid"),
      value: value === undefined ? null : String(value),
    });
  };
  /** @param {unknown} element @returns {element is HTMLInputElement | HTMLTextAreaElement} */
  const isField = (element) =>
    element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement;
  // A write that leaves the field's value as it was changes nothing the user sees or sends,
  // so it is not recorded: React's controlled inputs set `defaultValue` (the value
  // attribute) to what the user just typed, on every keystroke (docs/page-contract.md).
  /** @param {Element} element @param {string} via @param {unknown} value @param {() => void} write */
  const recordIfChanged = (element, via, value, write) => {
    flush(); // what happened before the write is recorded before it
    const before = isField(element) ? element.value : null;
    write();
    if (!isField(element) || element.value !== before) reportWrite(element, via, value);
  };
  /** @param {object} prototype @param {string} property */
  const wrapSetter = (prototype, property) => {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, property);
    const originalSet = descriptor?.set;
    if (!descriptor || !originalSet) return;
    Object.defineProperty(prototype, property, {
      ...descriptor,
      /** @this {Element} @param {unknown} value */
      set(value) {
        recordIfChanged(this, property, value, () => originalSet.call(this, value));
      },
    });
  };
  for (const property of ["value", "defaultValue", "valueAsNumber", "valueAsDate"]) {
    wrapSetter(HTMLInputElement.prototype, property);
  }
  for (const property of ["value", "defaultValue"]) wrapSetter(HTMLTextAreaElement.prototype, property);
  const setAttribute = Element.prototype.setAttribute;
  /** @type {typeof setAttribute} */
  Element.prototype.setAttribute = function (name, value) {
    if (!isField(this) || String(name).toLowerCase() !== "value") return setAttribute.call(this, name, value);
    recordIfChanged(this, "setAttribute", value, () => setAttribute.call(this, name, value));
  };
  for (const prototype of [HTMLInputElement.prototype, HTMLTextAreaElement.prototype]) {
    const setRangeText = prototype.setRangeText;
    /** @this {HTMLInputElement | HTMLTextAreaElement} @param {string} replacement */
    const wrapped = function (replacement) {
      recordWrite(this, "setRangeText", replacement);
      return Reflect.apply(setRangeText, this, arguments);
    };
    prototype.setRangeText = /** @type {typeof setRangeText} */ (wrapped);
  }
  const execCommand = Document.prototype.execCommand;
  /** @type {typeof execCommand} */
  Document.prototype.execCommand = function (command, showUi, value) {
    const active = this.activeElement;
    if (active && isField(active)) recordWrite(active, `execCommand:${command}`, value);
    return execCommand.call(this, command, showUi, value);
  };

  // ---- what the user (or a script pretending to be one) did ------------------------------
  /** @param {EventTarget | null} element */
  const interesting = (element) =>
    element instanceof Element
      ? element.closest("[data-decision],[data-pling-target],[data-testid^='pling-']")
      : null;
  document.addEventListener("click", (event) => {
    const element = interesting(event.target);
    if (!element) return;
    flush();
    report("click", {
      testid: element.getAttribute("data-testid"),
      decision: element.getAttribute("data-decision"),
      target: element.getAttribute("data-pling-target"),
      trusted: event.isTrusted,
    });
  }, true);
  document.addEventListener("input", (event) => {
    const element = event.target;
    if (!(element instanceof Element) || !element.hasAttribute("data-pling-target")) return;
    flush();
    report("input", {
      target: element.getAttribute("data-pling-target"),
      testid: element.getAttribute("data-testid"),
      trusted: event.isTrusted,
    });
  }, true);

  // ---- the runtime's own report (for reading, never for proving) -------------------------
  /** @param {unknown} value @param {number} [depth] @returns {unknown} */
  const plain = (value, depth = 0) => {
    if (value === null || typeof value !== "object") {
      return typeof value === "function" || typeof value === "symbol" ? undefined : value;
    }
    if (value instanceof Node) return `<${value.nodeName.toLowerCase()}>`;
    if (depth > 4) return "…";
    if (Array.isArray(value)) return value.map((item) => plain(item, depth + 1));
    /** @type {Record<string, unknown>} */
    const copy = {};
    for (const [key, item] of Object.entries(value)) copy[key] = plain(item, depth + 1);
    return copy;
  };
  window.addEventListener("pling:event", (event) => {
    flush();
    report("runtime", { detail: plain(/** @type {CustomEvent} */ (event).detail) });
  });
})();
