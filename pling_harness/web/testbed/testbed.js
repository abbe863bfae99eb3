/**
 * pling testbed: a bare page that loads the runtime (/pling/index.js) and lets tests declare
 * any action, including policy rows and handoff timeouts the r-15 page does not have.
 * Served at /testbed/?lang=zh|en (default en); `<html lang>` and the dock follow `lang`.
 *
 * window.plingTestbed (ready when <main data-testid="testbed"> has data-ready="true"):
 *
 *   declare({id, desc, kind, confirm?, params?, scope?, handoff?, failRun?}) → {id, policy}
 *     Creates a labelled button (data-testid="testbed-action-<id>", text = desc) and registers
 *     the action bound to it. Clicking the button itself does nothing: every business call
 *     comes from the agent. `null` fields count as absent (Python's None).
 *     - without `handoff`: run(args) POSTs args to /api/testbed/run/<id> and returns the JSON
 *       reply; a non-2xx reply throws (→ RUN_FAILED). `failRun: true | "message"` makes run
 *       throw instead, without calling the server.
 *     - `handoff: {reason?, timeout?, steps?: [inputText, finishText]}` (or `true`) makes a
 *       handoff action. The page adds a text input (data-testid="testbed-input-<id>", target
 *       "<id>__input") and a finish button (data-testid="testbed-finish-<id>", target
 *       "<id>__finish"); step 1 targets the input, step 2 the button. Clicking finish with a
 *       non-empty input sets testbed-status data-state="done" data-action="<id>", and only then
 *       is expect.check() true. Finish with an empty input sets data-state="incomplete".
 *       `timeout` (ms) is passed through to the declaration.
 *     Declaring an id again replaces the earlier declaration.
 *   undeclare(id)                remove the action and its elements
 *   activateScope(name)          activate a scope (counted); deactivateScope(name) undoes one
 *   setEnabled(id, enabled)      the runtime's on/off switch
 *   resolvePolicy(decl)          the runtime's policy resolution, for people trying the page by
 *                                hand; no check uses it (checks watch what the page does)
 *   registry, agent, executor    the live runtime objects
 */
import { mountAgent, defaultRegistry, resolveLocale, resolvePolicy } from "/pling/index.js";

const locale = resolveLocale(new URLSearchParams(location.search).get("lang") ?? "en");
document.documentElement.lang = locale;

/** The testbed's own few strings, in zh and en (any other locale reads en; test-only page,
 * the runtime's copy lives in its locale files). */
const COPY = {
  en: {
    title: "pling testbed",
    reason: "This step must be done by you.",
    inputStep: "Type a value into the field.",
    finishStep: "Click “Finish”.",
    inputLabel: "Value",
    finish: "Finish",
    done: "Done",
    incomplete: "Enter a value first",
  },
  zh: {
    title: "pling 测试页",
    reason: "此步骤必须由您亲自完成。",
    inputStep: "在输入框中输入内容。",
    finishStep: "点击“完成”。",
    inputLabel: "值",
    finish: "完成",
    done: "已完成",
    incomplete: "请先输入内容",
  },
}[locale === "zh" ? "zh" : "en"];

const main = /** @type {HTMLElement} */ (document.querySelector('[data-testid="testbed"]'));
const actionList = /** @type {HTMLElement} */ (document.querySelector('[data-testid="testbed-actions"]'));
const status = /** @type {HTMLElement} */ (document.querySelector('[data-testid="testbed-status"]'));
const dock = /** @type {import("/pling/index.js").AgentDock} */ (document.querySelector("pling-agent-dock"));
/** @type {HTMLElement} */ (document.querySelector('[data-testid="testbed-title"]')).textContent = COPY.title;

const { agent, executor, registry } = mountAgent({ dock, registry: defaultRegistry, locale });

/** Per declared id: how to take it away again. */
/** @type {Map<string, () => void>} */
const declared = new Map();
/** Handoff action ids whose finish button was clicked with a value. */
const finished = new Set();
/** @type {Map<string, Array<() => void>>} */
const scopeDeactivations = new Map();

/**
 * @param {Record<string, unknown>} object
 * @returns {Record<string, unknown>}
 */
function withoutNulls(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null && value !== undefined));
}

/**
 * @param {string} tag
 * @param {Record<string, string>} attributes
 * @param {string} [text]
 */
function element(tag, attributes, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * @param {string} id
 * @param {Record<string, unknown>} args
 */
async function callServer(id, args) {
  const response = await fetch(`/api/testbed/run/${encodeURIComponent(id)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(args),
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.message ?? `HTTP ${response.status}`);
  return body;
}

/**
 * @param {{id: string, desc: string, kind: string, confirm?: boolean | "always", params?: object,
 *   scope?: string, handoff?: true | {reason?: string, timeout?: number, steps?: string[]},
 *   failRun?: true | string}} input
 */
function declare(input) {
  const { handoff, failRun, ...fields } = withoutNulls(input);
  const id = /** @type {string} */ (fields.id);
  undeclare(id);
  finished.delete(id);

  const row = element("div", { class: "testbed-action", "data-testid": `testbed-row-${id}` });
  const button = element("button", { type: "button", "data-testid": `testbed-action-${id}` }, String(fields.desc));
  row.append(button);
  actionList.append(row);
  /** @type {Array<() => void>} */
  const undo = [() => row.remove()];

  /** @type {Record<string, unknown>} */
  const decl = { ...fields };
  if (handoff) {
    const spec = handoff === true ? {} : withoutNulls(/** @type {Record<string, unknown>} */ (handoff));
    const stepTexts = /** @type {string[] | undefined} */ (spec.steps) ?? [COPY.inputStep, COPY.finishStep];
    const field = element("input", { type: "text", "data-testid": `testbed-input-${id}`, "aria-label": COPY.inputLabel, placeholder: COPY.inputLabel });
    const finish = element("button", { type: "button", "data-testid": `testbed-finish-${id}` }, COPY.finish);
    finish.addEventListener("click", () => {
      const value = /** @type {HTMLInputElement} */ (field).value.trim();
      if (value !== "") finished.add(id);
      status.setAttribute("data-state", value !== "" ? "done" : "incomplete");
      status.setAttribute("data-action", id);
      status.textContent = value !== "" ? `${COPY.done}: ${id}` : COPY.incomplete;
    });
    row.append(field, finish);
    undo.push(registry.target(`${id}__input`, field), registry.target(`${id}__finish`, finish));
    decl.handoff = {
      reason: spec.reason ?? COPY.reason,
      steps: [
        { target: `${id}__input`, text: stepTexts[0] },
        { target: `${id}__finish`, text: stepTexts[1] },
      ],
      expect: { check: () => finished.has(id) },
      ...(spec.timeout === undefined ? {} : { timeout: spec.timeout }),
    };
  } else {
    decl.run = async (/** @type {Record<string, unknown>} */ args) => {
      if (failRun) throw new Error(failRun === true ? `${id} failed` : String(failRun));
      return callServer(id, args);
    };
  }
  try {
    undo.push(registry.tool(/** @type {any} */ (decl), button));
  } catch (error) {
    for (const step of undo.reverse()) step();
    throw error;
  }
  declared.set(id, () => {
    for (const step of undo.reverse()) step();
  });
  return { id, policy: resolvePolicy(/** @type {any} */ (decl)) };
}

/** @param {string} id */
function undeclare(id) {
  declared.get(id)?.();
  declared.delete(id);
}

/** @param {string} name */
function activateScope(name) {
  const list = scopeDeactivations.get(name) ?? [];
  list.push(registry.activateScope(name));
  scopeDeactivations.set(name, list);
}

/** @param {string} name */
function deactivateScope(name) {
  scopeDeactivations.get(name)?.pop()?.();
}

Object.assign(window, {
  plingTestbed: {
    declare,
    undeclare,
    activateScope,
    deactivateScope,
    setEnabled: registry.setEnabled,
    resolvePolicy,
    registry,
    agent,
    executor,
    locale,
  },
});
main.setAttribute("data-ready", "true");
// The page contract's ready signal (docs/page-contract.md, "Ready").
document.documentElement.dataset.plingReady = "true";
