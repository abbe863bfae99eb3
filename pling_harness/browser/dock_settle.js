// Whether a turn of the assistant has settled (pling_harness/browser/dock.py, `Dock._settle`):
// at least `startedAt` messages are shown, the part named by `gone` has left the screen, and
// either the assistant is idle with at least `repliedAt` messages or it asks the user
// something (an approval card not yet decided, or the handoff panel). A decided card has left
// when no element matching the driver's approval card carries the tag: a framework may keep
// the element as the call's record, its state no longer asking (the AI SDK's tool part).
// Loaded by the harness after dock_parts.js; called in the page on each animation frame.
/**
 * @typedef {{startedAt: number, repliedAt: number, gone: "decided" | "handoff" | null}} SettleWait
 */

/** The attribute the harness puts on the card it is deciding, so the next card is not it. */
const DECIDED_ATTRIBUTE = "data-harness-decided";

/**
 * @param {ReturnType<typeof plingDockParts>} parts
 * @param {(element: Element) => boolean} visible  as Playwright means it
 * @param {SettleWait} wait
 */
function plingDockSettled(parts, visible, { startedAt, repliedAt, gone }) {
  const look = parts.look();
  /** @param {Element[]} elements */
  const onScreen = (elements) => elements.some(visible);
  const dock = look.dock();
  const shown = look.messages().length;
  const busy = look.busy();
  const cards = look.parts("approval");
  const undecided = cards.filter((card) => !card.hasAttribute(DECIDED_ATTRIBUTE));
  const asking = onScreen(undecided) || onScreen(look.parts("handoff"));
  const decided = cards.filter((card) => card.hasAttribute(DECIDED_ATTRIBUTE));
  const stillThere =
    gone === "decided" ? onScreen(decided) : gone === "handoff" ? onScreen(look.parts("handoff")) : false;
  const idle = dock !== null && visible(dock) && !busy && shown >= repliedAt;
  const settled = shown >= startedAt && !stillThere && (idle || asking);
  const seen =
    `${shown} message(s) shown (waiting for ${startedAt} to start, ${repliedAt} for a reply), ` +
    `busy marker ${busy ? "present" : "gone"}, ` +
    `${asking ? "a card or the handoff panel" : "no card and no handoff panel"} on screen` +
    (stillThere ? `, the ${gone === "decided" ? "decided card" : "handoff panel"} still on screen` : "");
  return { settled, seen };
}
