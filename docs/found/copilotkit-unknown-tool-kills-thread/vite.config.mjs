// CopilotKit's runtime served by Vite itself at /api/copilotkit, as CopilotKit documents a
// self-hosted Node runtime (createCopilotRuntimeHandler + createCopilotNodeHandler), with
// BuiltInAgent calling the fake model over Chat Completions.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const BASE_PATH = "/api/copilotkit";
const MODEL_URL = process.env.MODEL_URL ?? "http://127.0.0.1:5999/v1";

function copilotRuntime() {
  return {
    name: "copilotkit-runtime",
    async configureServer(server) {
      process.env.COPILOTKIT_TELEMETRY_DISABLED ??= "true"; // read once, as the runtime loads
      const { createOpenAI } = await import("@ai-sdk/openai");
      const { BuiltInAgent, CopilotRuntime, InMemoryAgentRunner, createCopilotRuntimeHandler } =
        await import("@copilotkit/runtime/v2");
      const { createCopilotNodeHandler } = await import("@copilotkit/runtime/v2/node");
      const model = createOpenAI({ baseURL: MODEL_URL, apiKey: "not-needed" }).chat("fake");
      const runtime = new CopilotRuntime({
        agents: { default: new BuiltInAgent({ model, maxRetries: 0 }) },
        runner: new InMemoryAgentRunner(),
      });
      const listener = createCopilotNodeHandler(createCopilotRuntimeHandler({ runtime, basePath: BASE_PATH }));
      server.middlewares.use((request, response, next) => {
        if (!(request.url ?? "").startsWith(BASE_PATH)) return next();
        Promise.resolve(listener(request, response)).catch(next);
      });
    },
  };
}

export default defineConfig({ plugins: [react(), copilotRuntime()] });
