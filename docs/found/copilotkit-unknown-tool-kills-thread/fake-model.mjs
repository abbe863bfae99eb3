// An OpenAI-compatible Chat Completions endpoint (streaming) that answers the first request
// with one faulty tool call, then every later request with plain text. Each request is
// logged, so you can see whether the model is ever asked again.
//   SCENARIO=unknown  (default) a call to a tool the page never registered: "not_a_tool"
//   SCENARIO=not-json a call to the page's "rename" tool whose arguments are "{oops"
import { createServer } from "node:http";

const PORT = Number(process.env.PORT ?? 5999);
const SCENARIO = process.env.SCENARIO ?? "unknown";
const FAULTY = SCENARIO === "not-json"
  ? { name: "rename", arguments: "{oops" }
  : { name: "not_a_tool", arguments: "{}" };
let requests = 0;

function chunk(delta, finish = null) {
  return `data: ${JSON.stringify({ id: `chatcmpl-${requests}`, object: "chat.completion.chunk",
    created: 0, model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

createServer((request, response) => {
  let body = "";
  request.on("data", (part) => { body += part; });
  request.on("end", () => {
    requests += 1;
    const messages = JSON.parse(body || "{}").messages ?? [];
    console.log(`request ${requests}: last message ${JSON.stringify(messages.at(-1))}`);
    response.writeHead(200, { "Content-Type": "text/event-stream" });
    if (requests === 1) {
      response.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function",
        function: FAULTY }] }));
      response.write(chunk({}, "tool_calls"));
    } else {
      response.write(chunk({ role: "assistant", content: "Hello again." }));
      response.write(chunk({}, "stop"));
    }
    response.end("data: [DONE]\n\n");
  });
}).listen(PORT, "127.0.0.1", () => console.log(`fake model (${SCENARIO}) at http://127.0.0.1:${PORT}/v1`));
