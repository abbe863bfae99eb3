/**
 * The approval card: one call waiting for the user's decision. It only reports the click; the
 * executor, not this card, enforces what a decision may do (page script can click it too).
 */
import { h } from "./dom.js";
import { isHiddenCharacter } from "./hidden-characters.js";
import { translate } from "./i18n.js";

/**
 * @typedef {import("./executor.js").Decision} Decision
 * @typedef {{action: string, decl: {desc: string, kind: string}, policy: import("./policy.js").Policy, args: Record<string, unknown>}} ApprovalRequest
 * @typedef {Map<HTMLElement, (decision: Decision) => void>} OpenCards
 *   the owner's cards still waiting, each with the function that settles it
 */

/** One level of indentation, as `JSON.stringify(args, null, 2)` would indent. */
const INDENT = "  ";

/**
 * `\u202E`; past U+FFFF `\u{E0041}`.
 * @param {string} character one code point
 */
function escapeCharacter(character) {
  const hex = (character.codePointAt(0) ?? 0).toString(16).toUpperCase();
  return hex.length <= 4 ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`;
}

/**
 * A string as the card shows it, like a JSON string's content: a hidden character as its
 * escape (styled apart), a backslash doubled (so a `\u202E` the model typed reads `\\u202E`
 * and never passes for an escape), a double quote as `\"`, the rest as it is.
 * @param {string} value
 * @returns {{parts: (string | HTMLElement)[], hidden: boolean}}
 */
function visibleForm(value) {
  /** @type {(string | HTMLElement)[]} */
  const parts = [];
  let text = "";
  let hidden = false;
  for (const character of value) {
    // Never shown as itself (isHiddenCharacter): it could hide text or move it, so the
    // user would approve a value they did not see.
    if (isHiddenCharacter(character)) {
      if (text) parts.push(text);
      text = "";
      hidden = true;
      parts.push(h("span", { class: "pling-approval__escape" }, [escapeCharacter(character)]));
    } else {
      text += character === "\\" ? "\\\\" : character === '"' ? '\\"' : character;
    }
  }
  if (text) parts.push(text);
  return { parts, hidden };
}

/**
 * A string between its quotes, isolated for bidi (`<bdi>`), so nothing in it can move text
 * outside it; a value with hidden characters gets the marker that says so.
 * @param {string} value
 * @param {string} marker the locale's text for the marker
 * @param {boolean} isValue an argument's value (a key gets no testid or marker)
 * @returns {import("./dom.js").Child[]}
 */
function quoted(value, marker, isValue) {
  const { parts, hidden } = visibleForm(value);
  const attributes = isValue
    ? { class: "pling-approval__value", "data-testid": "pling-approval-value" }
    : { class: "pling-approval__key" };
  return [
    '"', h("bdi", attributes, parts), '"',
    isValue && hidden && h("span", { class: "pling-approval__hidden", "data-testid": "pling-approval-hidden" }, [marker]),
  ];
}

/**
 * Arguments as the user reads them on the approval card: laid out as indented JSON, each
 * string built as its own isolated element (see `quoted`), never as one string of text.
 * @param {unknown} value
 * @param {string} marker
 * @param {string} [indent]
 * @returns {import("./dom.js").Child[]}
 */
function formatArguments(value, marker, indent = "") {
  if (typeof value === "string") return quoted(value, marker, true);
  if (value === null || typeof value !== "object") return [JSON.stringify(value)];
  const inner = indent + INDENT;
  const entries = Array.isArray(value)
    ? value.map((item) => formatArguments(item, marker, inner))
    : Object.entries(value).map(([key, item]) => [...quoted(key, marker, false), ": ", ...formatArguments(item, marker, inner)]);
  if (entries.length === 0) return [Array.isArray(value) ? "[]" : "{}"];
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return [open, ...entries.flatMap((entry, index) => [index ? ",\n" : "\n", inner, ...entry]), `\n${indent}${close}`];
}

/**
 * Show the card at the end of `container` and resolve with the decision of the first click on
 * any `[data-decision]` inside it; the card then leaves the screen. While it waits it is in
 * `openCards`, so its owner can settle it too (a new conversation denies it).
 * @param {ApprovalRequest} request
 * @param {{locale: string, container: HTMLElement, openCards: OpenCards}} host
 * @returns {Promise<Decision>}
 */
export function showApprovalCard(request, { locale, container, openCards }) {
  const card = buildCard(request, locale);
  return new Promise((resolve) => {
    /** @param {Decision} decision */
    const settle = (decision) => {
      if (!openCards.has(card)) return;
      openCards.delete(card);
      card.removeEventListener("click", onClick);
      card.remove();
      resolve(decision);
    };
    /** @param {MouseEvent} event */
    const onClick = (event) => {
      const chosen = /** @type {Element | null} */ (event.target)?.closest?.("[data-decision]");
      if (!chosen || !card.contains(chosen)) return;
      settle(/** @type {Decision} */ (chosen.getAttribute("data-decision")));
    };
    card.addEventListener("click", onClick);
    openCards.set(card, settle);
    container.append(card);
  });
}

/**
 * @param {ApprovalRequest} request
 * @param {string} locale
 */
function buildCard({ action, decl, policy, args }, locale) {
  const t = (/** @type {string} */ key) => translate(locale, key);
  const hasArgs = Object.keys(args).length > 0;
  return h(
    "section",
    {
      class: `pling-card pling-approval pling-approval--${decl.kind}`,
      "data-testid": "pling-approval",
      "data-action": action,
      "data-policy": policy,
      role: "group",
      "aria-label": t("approval.title"),
    },
    [
      h("header", { class: "pling-card__header" }, [
        h("span", { class: "pling-card__eyebrow" }, [t("approval.title")]),
        h("span", { class: `pling-badge pling-badge--${decl.kind}` }, [t(`approval.kind.${decl.kind}`)]),
      ]),
      h("p", { class: "pling-card__title", "data-testid": "pling-approval-desc" }, [decl.desc]),
      h("p", { class: "pling-approval__id" }, [h("code", {}, [action])]),
      h("div", { class: "pling-approval__args-label" }, [t("approval.args")]),
      h("pre", { class: `pling-approval__args${hasArgs ? "" : " pling-approval__args--empty"}`, "data-testid": "pling-approval-args", dir: "ltr" }, [
        ...(hasArgs ? formatArguments(args, t("approval.hidden")) : [t("approval.noArgs")]),
      ]),
      h("p", { class: "pling-approval__policy" }, [t(policy === "ask" ? "approval.policy.ask" : "approval.policy.askAlways")]),
      h("div", { class: "pling-card__actions" }, [
        h("button", { type: "button", class: "pling-button pling-button--quiet", "data-testid": "pling-deny", "data-decision": "deny" }, [
          t("approval.deny"),
        ]),
        h("span", { class: "pling-card__spacer" }),
        // "Always allow" only where the executor can honour it (offersSessionGrant).
        policy === "ask" &&
          h("button", { type: "button", class: "pling-button", "data-testid": "pling-approve-always", "data-decision": "always" }, [
            t("approval.always"),
          ]),
        h(
          "button",
          {
            type: "button",
            class: `pling-button ${decl.kind === "danger" ? "pling-button--danger" : "pling-button--primary"}`,
            "data-testid": "pling-approve",
            "data-decision": "allow",
          },
          [t("approval.allow")],
        ),
      ]),
    ],
  );
}
