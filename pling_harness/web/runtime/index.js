/**
 * The public API of the pling reference runtime. Export-only.
 */
export { createAgent, MAX_MODEL_CALLS_PER_TURN, MAX_TOOL_CALLS_PER_REPLY } from "./agent.js";
export { AgentDock } from "./dock.js";
export { emit, EVENT_NAME } from "./events.js";
export { createExecutor, ERROR_CODES } from "./executor.js";
export { createGatewayClient, GatewayError } from "./gateway.js";
export { DEFAULT_HANDOFF_TIMEOUT_MS, runHandoff } from "./handoff.js";
export {
  HIDDEN_CHARACTERS_UNICODE_VERSION,
  isHiddenCharacter,
  refusedInName,
} from "./hidden-characters.js";
export { showHighlight } from "./highlight.js";
export { addMessages, resolveLocale, SUPPORTED_LOCALES, translate } from "./i18n.js";
export { mountAgent } from "./mount.js";
export { offersSessionGrant, resolvePolicy } from "./policy.js";
export {
  activateScope,
  createRegistry,
  defaultRegistry,
  setEnabled,
  target,
  tool,
} from "./registry.js";
export { parseArguments } from "./schema.js";
