// r-94 · a shared board: test data of tests/test_second_tutorial.py, a tutorial whose every
// check comes from its action table. English only; state lives on the server.
import { mountAgent, refusedInName, target, tool } from "/pling/index.js";

/** @param {string} testId */
const byTestId = (testId) => /** @type {HTMLElement} */ (document.querySelector(`[data-testid="${testId}"]`));
const board = byTestId("board");
const titleShown = byTestId("board-title");
const cardsShown = byTestId("board-cards");
const message = byTestId("board-message");
const renameForm = /** @type {HTMLFormElement} */ (byTestId("board-rename-form"));
const titleInput = /** @type {HTMLInputElement} */ (byTestId("board-title-input"));
const renameButton = /** @type {HTMLButtonElement} */ (byTestId("board-rename"));
const clearButton = /** @type {HTMLButtonElement} */ (byTestId("board-clear"));
const lockForm = /** @type {HTMLFormElement} */ (byTestId("board-lock-form"));
const codeInput = /** @type {HTMLInputElement} */ (byTestId("board-lock-code"));
const lockButton = /** @type {HTMLButtonElement} */ (byTestId("board-lock"));

/** @typedef {{title: string, cards: number, locked: boolean}} BoardState */

class BoardRequestError extends Error {}

/**
 * @param {string} path
 * @param {object} [body] a JSON POST; without it a GET
 * @returns {Promise<BoardState>}
 */
async function requestBoard(path, body) {
  const init = body === undefined
    ? {}
    : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init).catch(() => { throw new BoardRequestError("Could not reach the server."); });
  const payload = await response.json().catch(() => null);
  if (!response.ok) throw new BoardRequestError(payload?.message ?? `The server answered HTTP ${response.status}.`);
  return /** @type {BoardState} */ (payload);
}

/** @param {BoardState} state */
function render(state) {
  titleShown.textContent = state.title;
  cardsShown.textContent = String(state.cards);
  board.dataset.cards = String(state.cards);
  board.dataset.locked = String(state.locked);
  board.removeAttribute("aria-busy");
  clearButton.disabled = state.cards === 0;
  lockButton.disabled = state.locked;
}

/** @param {string} text shown as text */
function say(text) {
  message.textContent = text;
  message.hidden = false;
}

/** @param {Promise<BoardState>} request */
async function update(request) {
  try {
    const state = await request;
    render(state);
    return state;
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    throw error;
  }
}

const loadBoard = () => update(requestBoard("/api/board"));

/** @param {string} title */
function renameBoard(title) {
  const refused = refusedInName(title);
  if (refused !== null) {
    const code = `U+${(refused.character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
    return update(Promise.reject(new BoardRequestError(`The title holds ${code} at position ${refused.position}; nothing was sent.`)));
  }
  return update(requestBoard("/api/board/title", { title }));
}

const clearBoard = () => update(requestBoard("/api/board/clear", {}));
const lockBoard = () => update(requestBoard("/api/board/lock", { code: codeInput.value }));

const NO_PARAMS = /** @type {import("/pling/schema.js").ParamsSchema} */ ({ type: "object", properties: {}, additionalProperties: false });

function registerActions() {
  tool({ id: "get_board", desc: "Read the board: its title, cards and whether it is locked", kind: "read", params: NO_PARAMS, run: () => loadBoard() }, board);
  tool({
    id: "rename_board",
    desc: "Rename the board",
    kind: "write",
    confirm: true,
    params: {
      type: "object",
      properties: { title: { type: "string", minLength: 1, maxLength: 40 } },
      required: ["title"],
      additionalProperties: false,
    },
    run: ({ title }) => renameBoard(String(title)),
  }, renameButton);
  tool({ id: "clear_board", desc: "Remove every card from the board", kind: "danger", params: NO_PARAMS, run: () => clearBoard() }, clearButton);
  target("lock_code", codeInput);
  tool({
    id: "lock_board",
    desc: "Lock the board",
    kind: "danger",
    params: NO_PARAMS,
    handoff: {
      reason: "Only a person who knows the lock code may lock the board.",
      steps: [
        { target: "lock_code", text: "Type the lock code." },
        { target: "lock_board", text: "Press Lock." },
      ],
      timeout: 60000,
      expect: { check: () => board.dataset.locked === "true" },
    },
  }, lockButton);
}

const ignoreShownFailure = () => {};
renameForm.addEventListener("submit", (event) => {
  event.preventDefault();
  renameBoard(titleInput.value).catch(ignoreShownFailure);
});
clearButton.addEventListener("click", () => clearBoard().catch(ignoreShownFailure));
lockForm.addEventListener("submit", (event) => {
  event.preventDefault();
  lockBoard().catch(ignoreShownFailure);
});

registerActions();
mountAgent({ dock: /** @type {import("/pling/index.js").AgentDock} */ (document.querySelector("pling-agent-dock")), locale: "en" });
await loadBoard().then(() => { document.documentElement.dataset.plingReady = "true"; }, ignoreShownFailure);
