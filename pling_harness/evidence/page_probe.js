// The harness's in-page probe, injected with addInitScript before any page script runs.
//
// It records, in page order, what the page really did: every request the page starts
// (fetch, XHR, sendBeacon) with a snapshot of the business view at that instant; the
// approval / handoff / highlight UI appearing and disappearing; the page's business view
// changing; clicks and input events on decision buttons
// and bound elements; every programmatic write into an input (value setter,
// setAttribute("value"), setRangeText, execCommand); and the runtime's own `pling:event`
// reports. What counts as an approval card, a handoff panel, a highlight, a decision control
// or a handoff target is what the tutorial's dock driver names (`plingDockParts`, from
// pling_harness/browser/dock_parts.js, loaded just before this file), in the document and in
// every open shadow root alike. Entries go to the exposed binding (so they survive reloads), a task's entries in
// one call, and stay in
// `window.__plingProbe.entries` for the current document.
//
// Ordering matters more than anything here: a MutationObserver delivers its records in a
// later microtask, so before logging a request, a write, a click or a runtime event the
// probe flushes pending DOM records first. The log is therefore causally ordered: an
// approval that was on screen when a request left is logged before that request.
//
// The business view is the tutorial's (`page.business_view` in its tutorial.json): the
// harness sets `window.__plingProbeConfig = {businessView: {name: {testid, attribute}},
// driver: {...}}` in the same init script, just before this file; a value without an
// attribute is the element's trimmed text, an absent element null.
/**
 * @typedef {{doc: string, seq: number, kind: string, data: unknown}} ProbeEntry
 * @typedef {PartInfo & {box?: {x: number, y: number, width: number, height: number}}} UiInfo
 * @typedef {{testid: string, attribute?: string | null}} ShownValue
 * @typedef {{businessView?: Record<string, ShownValue>, driver: DriverSpec}} ProbeConfig
 * @typedef {Window & {__plingProbe?: {docId: string, entries: ProbeEntry[]},
 *            __plingProbeReport?: (entries: ProbeEntry[]) => unknown,
 *            __plingProbeConfig?: ProbeConfig}} ProbedWindow
 */
(() => {
  "use strict";
  const probed = /** @type {ProbedWindow} */ (window);
  if (window.top !== window || probed.__plingProbe) return;

  const BINDING_NAME = "__plingProbeReport";
  const config = /** @type {ProbeConfig} */ (probed.__plingProbeConfig);
  // The UI whose appearance and disappearance the guarantees reason about, as the driver names it.
  const parts = plingDockParts(config.driver);
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
  const isShown = (element) =>
    element.isConnected &&
    (typeof element.checkVisibility !== "function" || element.checkVisibility());
  const businessView = Object.entries(config.businessView || {});
  /** @param {ReturnType<typeof parts.look>} look @param {ShownValue} shown */
  const valueOf = (look, { testid, attribute }) => {
    const element = look.all(`[data-testid="${CSS.escape(testid)}"]`)[0];
    if (!element) return null;
    return attribute ? element.getAttribute(attribute) : (element.textContent || "").trim();
  };
  // The page's business view as the user sees it (all null on pages without it).
  /** @param {ReturnType<typeof parts.look>} look */
  const businessState = (look = parts.look()) => {
    /** @type {Record<string, string | null>} */
    const view = {};
    for (const [name, shown] of businessView) view[name] = valueOf(look, shown);
    return view;
  };
  /** @param {ReturnType<typeof parts.look>} look */
  const shownUi = (look) =>
    look.watched().filter(([element]) => isShown(element)).map(([element, part]) => parts.describe(element, part));

  // ---- DOM: watched UI appear / disappear, business state changes -------------------------
  /** @type {Map<Element, UiInfo>} */
  let shown = new Map();
  /** @type {string | null} */
  let lastState = null;
  /** @param {Element} element @param {WatchedPart} part @returns {UiInfo} */
  const describeElement = (element, part) => {
    /** @type {UiInfo} */
    const info = parts.describe(element, part);
    if (part === "highlight") {
      const box = element.getBoundingClientRect();
      info.box = { x: box.x, y: box.y, width: box.width, height: box.height };
    }
    return info;
  };
  const scan = () => {
    /** @type {Map<Element, UiInfo>} */
    const now = new Map();
    const look = parts.look();
    observeTrees(look.trees);
    for (const [element, part] of look.watched()) {
      if (isShown(element)) now.set(element, shown.get(element) || describeElement(element, part));
    }
    for (const [element, info] of shown) {
      if (!now.has(element)) {
        const { box, ...gone } = info; // where it was is of no interest once it has gone
        report("disappear", gone);
      }
    }
    for (const [element, info] of now) {
      if (!shown.has(element)) report("appear", info);
    }
    shown = now;
    const state = businessState(look);
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
  const OBSERVED = { subtree: true, childList: true, attributes: true, characterData: true };
  // A MutationObserver on the document hears nothing inside a shadow root: each open root
  // is observed too, as soon as it is attached (below) or, for one the parser attached
  // (declarative shadow DOM), at the first scan that finds it.
  /** @type {WeakSet<Node>} */
  const observedTrees = new WeakSet();
  /** @param {Iterable<Document | ShadowRoot | Element>} trees */
  const observeTrees = (trees) => {
    for (const tree of trees) {
      if (observedTrees.has(tree)) continue;
      observedTrees.add(tree);
      observer.observe(tree, OBSERVED);
    }
  };
  const attachShadow = Element.prototype.attachShadow;
  /** @type {typeof attachShadow} */
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    if (init && init.mode === "open") observeTrees([root]);
    return root;
  };
  const startObserving = () => {
    observeTrees([document]);
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
  const uiAndState = () => {
    const look = parts.look();
    return { state: businessState(look), ui: shownUi(look) };
  };
  let nextRequestId = 1;
  /** @param {string} via @param {unknown} method @param {unknown} url @param {unknown} body */
  const recordRequest = (via, method, url, body) => {
    flush();
    const id = nextRequestId++;
    report("request", {
      id, via, method: String(method || "GET").toUpperCase(), path: pathOf(url),
      body: bodyText(body), ...uiAndState(),
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
      target: parts.targetId(element),
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
  // The nearest element on the event's path (into open shadow roots) that is one of the
  // driver's controls, a handoff target or an element carrying a decision.
  /** @param {Event} event */
  const interesting = (event) => {
    for (const node of event.composedPath()) {
      if (!(node instanceof Element)) continue;
      const control = parts.control(node);
      const target = parts.targetId(node);
      if (control !== null || target !== null || parts.carriesDecision(node)) {
        return { control, target, decision: parts.decision(node) };
      }
    }
    return null;
  };
  document.addEventListener("click", (event) => {
    const found = interesting(event);
    if (!found) return;
    flush();
    report("click", { ...found, trusted: event.isTrusted });
  }, true);
  document.addEventListener("input", (event) => {
    const element = event.composedPath()[0];
    const target = element instanceof Element ? parts.targetId(element) : null;
    if (target === null) return;
    flush();
    report("input", {
      target,
      testid: /** @type {Element} */ (element).getAttribute("data-testid"),
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
