// @ts-check
/**
 * Stryker ignorer plugin "pling": code in the runtime that makes no promise to the page or
 * the model, so a mutant there could only tell whether a check reads diagnostics, not
 * whether the runtime keeps its promises. Stryker reports each as "Ignored" with the reason
 * (left out of the score), instead of a disable comment inside pling_harness/web/runtime/.
 *
 * 1. Always: the arguments of `emit(...)` (debug events), `console.*(...)` calls, and the
 *    message of `new ...Error(...)`. Only the call itself: the condition that decides
 *    whether it happens, and what the code does next, are still mutated.
 * 2. The plan's `ignore` list (config key `pling.ignore`: `{file, line, reason}`): the
 *    statement starting on a line whose trimmed text is `line`, in `file` (relative to the
 *    project root), when every mutant there is equivalent for the reason given.
 */
import path from "node:path";
import { PluginKind, commonTokens, declareFactoryPlugin } from "@stryker-mutator/api/plugin";

/** Reasons, as they appear in the report (the harness groups ignored mutants by them). */
export const REASONS = Object.freeze({
  debugEvent:
    "debug event: emit({...}) records are for timelines only; guarantees never read pling:event (architecture.md)",
  console: "console message: a developer diagnostic, not part of the page contract",
  errorText:
    "developer error text: whether a declaration is refused is mutated and checked; the wording of the thrown message is not a promise",
});

/** The options this plugin adds to Stryker's config. */
export const strykerValidationSchema = {
  $schema: "http://json-schema.org/draft-07/schema",
  type: "object",
  properties: {
    pling: {
      type: "object",
      additionalProperties: false,
      properties: {
        ignore: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["file", "line", "reason"],
            properties: { file: { type: "string" }, line: { type: "string" }, reason: { type: "string" } },
          },
        },
      },
    },
  },
};

/**
 * @param {import("@babel/core").NodePath} nodePath
 * @param {string} name
 */
function isCallOf(nodePath, name) {
  return nodePath.isCallExpression() && nodePath.node.callee.type === "Identifier" && nodePath.node.callee.name === name;
}

/** @param {import("@babel/core").NodePath} nodePath */
function isConsoleCall(nodePath) {
  if (!nodePath.isCallExpression()) return false;
  const callee = nodePath.node.callee;
  return callee.type === "MemberExpression" && callee.object.type === "Identifier" && callee.object.name === "console";
}

/** @param {import("@babel/core").NodePath} nodePath */
function isErrorConstruction(nodePath) {
  return (
    nodePath.isNewExpression() && nodePath.node.callee.type === "Identifier" && /^(?:[A-Z]\w*)?Error$/.test(nodePath.node.callee.name)
  );
}

/**
 * The trimmed text of the line a statement starts on, and its file relative to the cwd.
 * @param {import("@babel/core").NodePath} nodePath
 * @returns {{file: string, line: string} | undefined}
 */
function whereStatementStarts(nodePath) {
  const file = /** @type {{opts?: {filename?: string}, code?: string} | undefined} */ (nodePath.hub && /** @type {any} */ (nodePath.hub).file);
  const start = nodePath.node.loc?.start.line;
  if (!nodePath.isStatement() || !file?.opts?.filename || file.code === undefined || start === undefined) return undefined;
  const relative = path.relative(process.cwd(), file.opts.filename).split(path.sep).join("/");
  return { file: relative, line: (file.code.split("\n")[start - 1] ?? "").trim() };
}

/**
 * @param {{pling?: {ignore?: Array<{file: string, line: string, reason: string}>}}} options
 */
function createIgnorer(options) {
  const listed = options.pling?.ignore ?? [];
  return {
    /** @param {import("@babel/core").NodePath} nodePath */
    shouldIgnore(nodePath) {
      if (isCallOf(nodePath, "emit")) return REASONS.debugEvent;
      if (isConsoleCall(nodePath)) return REASONS.console;
      if (isErrorConstruction(nodePath)) return REASONS.errorText;
      if (listed.length === 0) return undefined;
      const where = whereStatementStarts(nodePath);
      if (!where) return undefined;
      const entry = listed.find((item) => item.file === where.file && item.line === where.line);
      return entry ? `equivalent: ${entry.reason}` : undefined;
    },
  };
}
createIgnorer.inject = /** @type {const} */ ([commonTokens.options]);

export const strykerPlugins = [declareFactoryPlugin(PluginKind.Ignore, "pling", /** @type {any} */ (createIgnorer))];
