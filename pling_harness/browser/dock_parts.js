// The parts a dock driver names, found and read in the page: the one reading of a driver file
// (pling_harness/project/dock_driver.py) inside the page. The in-page probe watches with it and
// the dock's waits look with it, so both see exactly what the Python side reads and clicks.
//
// A selector matches in the document and in every open shadow root, as Playwright's locators
// do (a closed root is the page's own: nobody outside it can read it). One selector does not
// cross a shadow boundary: `a b` finds `b` in the same tree as `a`, or in a root inside `a`.
//
// This file declares one function and is loaded into the page by the harness, before the
// script that calls it (no module: init scripts and `page.evaluate` take plain scripts).
/**
 * @typedef {{attribute?: string | null, inside?: string | null, values?: Record<string, string>}} Reading
 * @typedef {{absent: string}} Absent
 * @typedef {string | Reading} Value
 * @typedef {{element: string, role: Value, code?: Value | null}} MessageKind
 * @typedef {{element: string, id: Value}} TargetKind
 * @typedef {{
 *   name: string,
 *   dock: {root: string, input: string, send: string, busy: string | Absent, new_conversation: string | Absent},
 *   messages: MessageKind[],
 *   approval: {card: string, action: Reading, policy: Reading | Absent, always: string | Absent,
 *              allow: string, deny: string, decision: Reading | Absent} & Record<string, unknown>,
 *   handoff: ({panel: string, action: Reading, done: string | Absent, cancel: string | Absent,
 *              next: string | Absent, back: string | Absent} & Record<string, unknown>) | Absent,
 *   highlight: {overlay: string, target: Reading, marked: string | Absent} | Absent,
 *   targets: TargetKind[] | Absent,
 * }} DriverSpec
 * @typedef {"approval" | "handoff" | "highlight"} WatchedPart
 * @typedef {{part: WatchedPart, action?: string | null, policy?: string | null,
 *            always?: boolean | null, target?: string | null}} PartInfo
 */

/**
 * @param {DriverSpec} spec
 */
function plingDockParts(spec) {
  /**
   * @template T
   * @param {T} part
   * @returns {Exclude<T, Absent> | null}
   */
  const named = (part) =>
    part !== null && typeof part === "object" && "absent" in part ? null : /** @type {Exclude<T, Absent>} */ (part);
  /**
   * Every open shadow root in `root`'s tree and, in turn, in theirs.
   * @param {Document | ShadowRoot | Element} root
   * @param {ShadowRoot[]} found
   * @returns {ShadowRoot[]}
   */
  const shadowRoots = (root, found = []) => {
    for (const element of root.querySelectorAll("*")) {
      if (element.shadowRoot) {
        found.push(element.shadowRoot);
        shadowRoots(element.shadowRoot, found);
      }
    }
    return found;
  };
  /**
   * `selector`'s matches in the trees given; a selector the browser refuses matches nothing
   * (the preflight names it).
   * @param {(Document | ShadowRoot | Element)[]} trees
   * @param {string} selector
   * @returns {Element[]}
   */
  const matching = (trees, selector) => {
    try {
      return trees.flatMap((tree) => [...tree.querySelectorAll(selector)]);
    } catch {
      return [];
    }
  };
  /**
   * Descendants of `element` matching `selector`, inside its open shadow roots too.
   * @param {Element} element
   * @param {string} selector
   */
  const within = (element, selector) => {
    const own = element.shadowRoot ? [element.shadowRoot, ...shadowRoots(element.shadowRoot)] : [];
    return matching([element, ...shadowRoots(element), ...own], selector);
  };
  /**
   * @param {Element} element
   * @param {string} selector
   */
  const matches = (element, selector) => {
    try {
      return element.matches(selector);
    } catch {
      return false;
    }
  };
  /**
   * What `value` says about `element`: a fixed value, or its reading (see Reading).
   * @param {Element} element
   * @param {Value | null | undefined} value
   * @returns {string | null}
   */
  const read = (element, value) => {
    if (value === null || value === undefined) return null;
    if (typeof value === "string") return value;
    const source = value.inside ? within(element, value.inside)[0] : element;
    if (!source) return null;
    const raw = value.attribute ? source.getAttribute(value.attribute) : (source.textContent || "").trim();
    if (raw === null) return null;
    const values = value.values || {};
    return Object.hasOwn(values, raw) ? values[raw] : raw;
  };

  const approval = spec.approval;
  const handoff = named(spec.handoff);
  const highlight = named(spec.highlight);
  const targets = named(spec.targets) || [];
  const always = named(approval.always);
  const decision = named(approval.decision);
  /** The controls a click on which the record names, by the driver's part name. */
  /** @type {[string, string | null][]} */
  const controls = [
    ["send", spec.dock.send], ["new_conversation", named(spec.dock.new_conversation)],
    ["allow", approval.allow], ["always", always], ["deny", approval.deny],
    ...(handoff ? /** @type {[string, string | null][]} */ ([
      ["done", named(handoff.done)], ["cancel", named(handoff.cancel)],
      ["next", named(handoff.next)], ["back", named(handoff.back)]]) : []),
  ];

  return {
    /**
     * One look at the page: its trees, found once, and what the driver names in them.
     */
    look() {
      const trees = [document, ...shadowRoots(document)];
      /** @param {string} selector */
      const all = (selector) => matching(trees, selector);
      return {
        trees,
        all,
        /** @returns {[Element, WatchedPart][]} approval cards, handoff panels, highlights */
        watched() {
          /** @type {[Element, WatchedPart][]} */
          const found = all(approval.card).map((element) => [element, "approval"]);
          if (handoff) for (const element of all(handoff.panel)) found.push([element, "handoff"]);
          if (highlight) for (const element of all(highlight.overlay)) found.push([element, "highlight"]);
          return found;
        },
        /** Each message once (an element two kinds match is one message), with its role and code. */
        /** @returns {{element: Element, role: string | null, code: string | null}[]} */
        messages() {
          /** @type {Map<Element, {element: Element, role: string | null, code: string | null}>} */
          const found = new Map();
          for (const kind of spec.messages) {
            for (const element of all(kind.element)) {
              if (!found.has(element)) found.set(element, { element, role: read(element, kind.role), code: read(element, kind.code) });
            }
          }
          return [...found.values()];
        },
        dock() {
          return all(spec.dock.root)[0] || null;
        },
        busy() {
          const busy = named(spec.dock.busy);
          return busy !== null && all(busy).length > 0;
        },
        /** The handoff targets on the page, each with its id. */
        targets() {
          return targets.flatMap((kind) => all(kind.element).map((element) => ({ element, id: read(element, kind.id) })));
        },
        /** @param {WatchedPart} part */
        parts(part) {
          if (part === "approval") return all(approval.card);
          if (part === "handoff") return handoff ? all(handoff.panel) : [];
          return highlight ? all(highlight.overlay) : [];
        },
      };
    },
    /**
     * What the record keeps of a watched element.
     * @param {Element} element
     * @param {WatchedPart} part
     * @returns {PartInfo}
     */
    describe(element, part) {
      if (part === "approval") {
        return {
          part, action: read(element, approval.action), policy: read(element, named(approval.policy)),
          always: always === null ? null : within(element, always).length > 0,
        };
      }
      if (part === "handoff") return { part, action: read(element, handoff ? handoff.action : null) };
      return { part, target: read(element, highlight ? highlight.target : null) };
    },
    /**
     * The handoff target `element` is, by the driver's targets (null: none).
     * @param {Element} element
     */
    targetId(element) {
      for (const kind of targets) if (matches(element, kind.element)) return read(element, kind.id);
      return null;
    },
    /**
     * The driver's control `element` is (e.g. "allow", "done"), or null.
     * @param {Element} element
     */
    control(element) {
      for (const [name, selector] of controls) if (selector && matches(element, selector)) return name;
      return null;
    },
    /**
     * The decision `element` carries by the driver's delegated decision attribute, or null.
     * @param {Element} element
     */
    decision(element) {
      return decision === null ? null : read(element, decision);
    },
    /** Whether `element` may carry a decision (so a click on it is worth recording). */
    /** @param {Element} element */
    carriesDecision(element) {
      return decision !== null && decision.attribute ? element.hasAttribute(decision.attribute) : false;
    },
    within,
    read,
  };
}
