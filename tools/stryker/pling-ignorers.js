// @ts-check
/**
 * Stryker ignorer plugin "pling": code in the runtime that makes no promise to the page or
 * the model, so a mutant there can only tell whether a check reads diagnostics, not whether
 * the runtime keeps its promises. Each is reported by Stryker as "Ignored" with the reason
 * below (and left out of the score), instead of a disable comment inside fixtures/pling/.
 *
 * Only the call (or `new Error(...)`) itself is ignored: the condition that decides
 * whether it happens, and what the code does next, are still mutated.
 */
import { PluginKind, declareValuePlugin } from "@stryker-mutator/api/plugin";

/** Reasons, as they appear in the report (the harness groups ignored mutants by them). */
export const REASONS = Object.freeze({
  debugEvent:
    "debug event: emit({...}) records are for timelines only; guarantees never read pling:event (architecture.md)",
  console: "console message: a developer diagnostic, not part of the page contract (SPEC §2: the runtime *may* warn)",
  errorText:
    "developer error text: which declaration is refused is mutated and checked; the wording of the thrown message is not a promise",
});

/** @param {import("@babel/core").NodePath} path */
function isCallOf(path, name) {
  return path.isCallExpression() && path.node.callee.type === "Identifier" && path.node.callee.name === name;
}

/** @param {import("@babel/core").NodePath} path */
function isConsoleCall(path) {
  if (!path.isCallExpression()) return false;
  const callee = path.node.callee;
  return callee.type === "MemberExpression" && callee.object.type === "Identifier" && callee.object.name === "console";
}

/** @param {import("@babel/core").NodePath} path */
function isErrorConstruction(path) {
  return path.isNewExpression() && path.node.callee.type === "Identifier" && /^[A-Z]\w*Error$/.test(path.node.callee.name);
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, "pling", {
    /** @param {import("@babel/core").NodePath} path */
    shouldIgnore(path) {
      if (isCallOf(path, "emit")) return REASONS.debugEvent;
      if (isConsoleCall(path)) return REASONS.console;
      if (isErrorConstruction(path)) return REASONS.errorText;
      return undefined;
    },
  }),
];
