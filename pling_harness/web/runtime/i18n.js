/**
 * Every string the runtime shows comes from a catalogue, looked up by key with
 * `{placeholder}` substitution. The runtime ships the zh and en catalogues (locales/); a page
 * in any other locale gives the runtime its strings for that locale with `addMessages`
 * (`mountAgent({messages})`), as a tutorial's `copy/dock/<locale>.json` does.
 */
import en from "./locales/en.json" with { type: "json" };
import zh from "./locales/zh.json" with { type: "json" };

/** @typedef {string} Locale  a language subtag: "zh", "en", "ja", ... */

/** Locales the runtime ships copy for. */
export const SUPPORTED_LOCALES = /** @type {const} */ (["zh", "en"]);

/** Used when a page asks for a locale nobody gave copy for, and for a key a page's own
 * catalogue lacks. */
export const FALLBACK_LOCALE = "en";

/** @type {ReadonlyMap<string, Readonly<Record<string, string>>>} */
const SHIPPED = new Map([["zh", zh], ["en", en]]);

/** Catalogues pages gave, by language subtag; over the shipped one of the same locale.
 * @type {Map<string, Record<string, string>>} */
const GIVEN = new Map();

/** Keys already reported missing, so each is reported once. */
const reportedMissing = new Set();

/** @param {string | null | undefined} value */
function languageOf(value) {
  return String(value ?? "").toLowerCase().split(/[-_]/)[0];
}

/**
 * The locale closest to `value` that has copy ("zh-CN" → "zh"; "ja" once a page gave ja
 * strings), else the fallback.
 * @param {string | null | undefined} value
 * @returns {Locale}
 */
export function resolveLocale(value) {
  const base = languageOf(value);
  return SHIPPED.has(base) || GIVEN.has(base) ? base : FALLBACK_LOCALE;
}

/**
 * Give the runtime its strings in `locale` (every key of the shipped catalogues, with the
 * same `{placeholder}`s): a locale it ships none for, or other words for one it ships. A key
 * the catalogue lacks is shown in the fallback locale and reported once on the console.
 * @param {string} locale
 * @param {Record<string, string>} messages
 */
export function addMessages(locale, messages) {
  const base = languageOf(locale);
  if (!/^[a-z]{2,3}$/.test(base)) throw new TypeError(`pling: addMessages: ${JSON.stringify(locale)} is not a locale.`);
  if (typeof messages !== "object" || messages === null || Array.isArray(messages)) {
    throw new TypeError(`pling: addMessages(${JSON.stringify(locale)}): messages must be an object of strings.`);
  }
  /** @type {Record<string, string>} */
  const strings = {};
  for (const [key, value] of Object.entries(messages)) {
    if (typeof value !== "string") throw new TypeError(`pling: addMessages(${JSON.stringify(locale)}): "${key}" is not a string.`);
    strings[key] = value;
  }
  GIVEN.set(base, { ...GIVEN.get(base), ...strings });
}

/**
 * Look `key` up in the locale's catalogue and fill `{name}` placeholders from `params`.
 * A missing key is reported once; the fallback locale's text (else the key) is shown.
 * @param {string} locale
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
export function translate(locale, key, params = {}) {
  const resolved = resolveLocale(locale);
  let template = GIVEN.get(resolved)?.[key] ?? SHIPPED.get(resolved)?.[key];
  if (template === undefined) {
    if (!reportedMissing.has(`${resolved}\n${key}`)) {
      reportedMissing.add(`${resolved}\n${key}`);
      console.error(`pling: no "${key}" in the ${resolved} strings.`);
    }
    template = SHIPPED.get(FALLBACK_LOCALE)?.[key] ?? key;
  }
  return template.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}
