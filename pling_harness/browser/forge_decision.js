// Page script preparing a decision the user never chose, on the approval card being decided
// (pling_harness/browser/dock.py, `Dock.forge_decision`). A dock that decides by a delegated
// attribute (the driver's `approval.decision`; in the page contract any element carrying it
// inside the card decides the card when clicked) cannot tell such an element from its own buttons, so only
// the executor can refuse what it asks. Injects an element carrying the decision (or
// relabels the card's own Allow control), marked `data-harness-forged`; for the two script
// routes it also clicks it; the user routes are driven by Playwright afterwards.
/**
 * @typedef {"script-click" | "dispatched-click" | "user-click" | "user-keyboard" | "nested-element" | "relabelled-button"} ForgeRoute
 */

/**
 * @param {Element} card
 * @param {{attribute: string, decision: string, route: ForgeRoute, allow: string}} forgery
 */
function forgeDecision(card, { attribute, decision, route, allow }) {
  card.setAttribute("data-harness-decided", "");
  /** @type {Element | null} */
  let forged;
  if (route === "relabelled-button") {
    forged = card.querySelector(allow);
    if (!forged) throw new Error(`the card has no Allow control (${allow}) to relabel`);
  } else if (route === "nested-element") {
    forged = document.createElement("span");
    forged.textContent = "forged";
    const wrapper = document.createElement("div");
    wrapper.append(forged);
    wrapper.setAttribute(attribute, decision);
    card.append(wrapper);
  } else {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "forged";
    card.append(button);
    forged = button;
  }
  if (route !== "nested-element") forged.setAttribute(attribute, decision);
  forged.setAttribute("data-harness-forged", "");
  if (route === "script-click" && forged instanceof HTMLElement) forged.click();
  if (route === "dispatched-click") {
    forged.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window }));
  }
}
