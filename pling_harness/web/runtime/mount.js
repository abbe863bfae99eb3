/**
 * Wiring for pages: one call connects a dock, a registry, the gateway client, the executor
 * and the agent loop.
 */
import { createAgent } from "./agent.js";
import { AgentDock } from "./dock.js";
import { createExecutor } from "./executor.js";
import { createGatewayClient } from "./gateway.js";
import { addMessages, resolveLocale } from "./i18n.js";
import { defaultRegistry } from "./registry.js";

/**
 * @param {{
 *   dock: AgentDock,
 *   registry?: import("./registry.js").Registry,
 *   locale?: string,
 *   messages?: Record<string, string>,
 *   gatewayUrl?: string,
 * }} options  `locale` defaults to the dock's `locale` attribute, then `<html lang>`;
 * `messages` are the dock's strings in that locale, for a locale the runtime ships none for
 * (see `addMessages`)
 * `unmount()` ends the dock session (as "new conversation" does) and stops listening to the
 * dock, so a component framework that mounts the dock again (React's StrictMode) leaves one
 * agent listening, not two.
 */
export function mountAgent({ dock, registry = defaultRegistry, locale, messages, gatewayUrl = "/api/model" }) {
  if (!(dock instanceof AgentDock)) {
    throw new TypeError("pling: mountAgent({dock}) needs a <pling-agent-dock> element.");
  }
  const wanted = locale ?? dock.getAttribute("locale") ?? document.documentElement.lang;
  if (messages !== undefined) addMessages(wanted, messages);
  const resolvedLocale = resolveLocale(wanted);
  dock.setAttribute("locale", resolvedLocale);
  const executor = createExecutor({ registry, ui: dock, locale: resolvedLocale });
  const gateway = createGatewayClient({ url: gatewayUrl });
  const agent = createAgent({ registry, gateway, ui: dock, locale: resolvedLocale, executor });
  const stopSend = dock.onSend((text) => void agent.send(text));
  const stopNewConversation = dock.onNewConversation(() => agent.newConversation());
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    mounted = false;
    stopSend();
    stopNewConversation();
    agent.newConversation();
  };
  return { agent, executor, registry, unmount };
}
