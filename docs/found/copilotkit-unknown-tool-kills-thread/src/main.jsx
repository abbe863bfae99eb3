// One human-in-the-loop tool ("rename"), CopilotKit's own sidebar, and the chat's onError
// shown in the page, as CopilotKit's docs route errors
// (https://docs.copilotkit.ai/troubleshooting/error-debugging, "Programmatic error handling").
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import { CopilotKitProvider, CopilotSidebar, useHumanInTheLoop } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { z } from "zod";

function RenameTool() {
  useHumanInTheLoop({
    name: "rename",
    description: "Rename the workspace (asks the user first)",
    parameters: z.object({ name: z.string() }),
    render: ({ args, status, respond, result }) => (
      <div data-testid="card" data-status={status}>
        <p>Allow this action? Rename to {String(args?.name ?? "")}</p>
        {status === "executing" && (
          <>
            <button onClick={() => respond?.({ ok: true })}>Allow</button>
            <button onClick={() => respond?.({ ok: false, code: "PERMISSION_DENIED" })}>Deny</button>
          </>
        )}
        {status === "complete" && <p data-testid="outcome">{JSON.stringify(result)}</p>}
      </div>
    ),
  });
  return null;
}

function App() {
  const [errors, setErrors] = useState([]);
  return (
    <CopilotKitProvider runtimeUrl="/api/copilotkit" enableInspector={false}>
      <RenameTool />
      <ul data-testid="errors">
        {errors.map((error, index) => <li key={index}>Chat error: {error}</li>)}
      </ul>
      <CopilotSidebar defaultOpen onError={(event) => setErrors((now) => [...now, String(event.code)])} />
    </CopilotKitProvider>
  );
}

createRoot(document.getElementById("root")).render(<StrictMode><App /></StrictMode>);
