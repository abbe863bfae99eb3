"""TestbedScripts: what a page's own code does on the testbed, through the runtime's API as a
page calls it (`window.plingTestbed.registry`: `tool()`, `target()`, `activateScope()`, and
the agent `mountAgent()` returns), for checks that need more than `Testbed.declare` can
write: a `run` or an `expect.check()` of their own, handoffs over other kinds of element, a
page that changes what it registered, a second agent on the page.

Each method is one page script, named for what the page does; the elements it adds carry
`data-testid`s starting with `gap-` (where the checks that need them were first written).
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator, Page

# Page script prelude: a fresh button in the testbed's action list, and a call that reports
# its exception (as text) instead of throwing.
_HELPERS = """
  const button = (text) => {
    const element = document.createElement("button");
    element.textContent = text;
    document.querySelector("[data-testid='testbed-actions']").append(element);
    return element;
  };
  const refusal = (call) => {
    try { call(); return null; } catch (error) { return String(error); }
  };
  const registry = window.plingTestbed.registry;
"""


def _script(body: str) -> str:
    """A page script without an argument whose body may use the prelude's helpers."""
    return "() => {" + _HELPERS + body + "}"


_REGISTER_RAW_SHAPES = _script("""
  const run = () => "done";
  const step = {target: "raw_target", text: "Do it."};
  const handoff = {reason: "Only you can.", steps: [step], expect: {check: () => true}};
  const base = (n) => ({id: `bad_raw_${n}`, desc: "Bad declaration", kind: "write"});
  const shapes = {
    "not-an-object": null,
    "a-text": "bad_raw_text",
    "id-not-a-text": {...base(0), id: 7, run},
    "id-empty": {...base(0), id: "", run},
    "desc-not-a-text": {...base(1), desc: 5, run},
    "scope-not-a-text": {...base(2), scope: 5, run},
    "run-not-a-function": {...base(3), run: "done"},
    "run-and-handoff": {...base(4), run, handoff},
    "neither-run-nor-handoff": base(5),
    "handoff-not-an-object": {...base(6), handoff: "later"},
    "handoff-null": {...base(7), handoff: null},
    "handoff-reason-missing": {...base(8), handoff: {...handoff, reason: undefined}},
    "handoff-steps-not-a-list": {...base(9), handoff: {...handoff, steps: "Do it."}},
    "handoff-steps-empty": {...base(10), handoff: {...handoff, steps: []}},
    "handoff-step-without-target": {...base(11), handoff: {...handoff, steps: [{text: "Do it."}]}},
    "handoff-step-text-not-a-text":
      {...base(12), handoff: {...handoff, steps: [{...step, text: 5}]}},
    "handoff-expect-missing": {...base(13), handoff: {...handoff, expect: undefined}},
    "handoff-check-not-a-function": {...base(14), handoff: {...handoff, expect: {check: true}}},
    "handoff-timeout-infinite": {...base(15), handoff: {...handoff, timeout: Infinity}},
    "handoff-timeout-not-a-number": {...base(16), handoff: {...handoff, timeout: NaN}},
  };
  return Object.fromEntries(Object.entries(shapes).map(
    ([name, shape]) => [name, refusal(() => registry.tool(shape))]));
""")
# Every id the shapes above carry starts with this.
RAW_SHAPE_ID_PREFIX = "bad_raw_"

_REGISTER_RETURNING = """source => {
  const button = document.createElement("button");
  button.textContent = "Compute total";
  document.querySelector("[data-testid='testbed-actions']").append(button);
  const run = new Function(`return (${source});`)();
  window.plingTestbed.registry.tool(
    {id: "compute_total", desc: "Compute the total", kind: "read", run}, button);
}"""
RETURNING_ACTION = "compute_total"
RETURNING_DESC = "Compute the total"

_REGISTER_COUNTING_HANDOFF = """() => {
  const area = document.querySelector("[data-testid='testbed-actions']");
  const field = document.createElement("input");
  const button = document.createElement("button");
  button.textContent = "Countersign";
  const note = document.createElement("p");
  note.setAttribute("data-testid", "gap-note");
  note.textContent = "draft";
  area.append(field, button, note);
  window.gapCheckCalls = 0;
  const registry = window.plingTestbed.registry;
  registry.target("gap_field", field);
  registry.tool({id: "countersign", desc: "Countersign", kind: "write", handoff: {
    reason: "Only you can countersign.",
    steps: [{target: "gap_field", text: "Type your initials."},
            {target: "countersign", text: "Click Countersign."}],
    expect: {check: () => { window.gapCheckCalls += 1; return false; }},
  }}, button);
}"""
# The handoff id the counting, the throwing and the taken-target handoffs register.
COUNTERSIGN_ACTION = "countersign"

_REGISTER_THROWING_CHECK = """() => {
  const button = document.createElement("button");
  button.textContent = "Countersign";
  document.querySelector("[data-testid='testbed-actions']").append(button);
  window.plingTestbed.registry.tool({id: "countersign", desc: "Countersign", kind: "write",
    handoff: {reason: "Only you can countersign.",
              steps: [{target: "countersign", text: "Click Countersign."}],
              expect: {check: () => { throw new Error("status unknown"); }}}}, button);
}"""

_REGISTER_FIVE_STEP_HANDOFF = """() => {
  const area = document.querySelector("[data-testid='testbed-actions']");
  const make = (tag, testid) => {
    const element = document.createElement(tag);
    element.setAttribute("data-testid", testid);
    area.append(element);
    return element;
  };
  const notes = make("textarea", "gap-notes");
  notes.value = "draft";
  notes.addEventListener("input", (event) => event.stopPropagation());
  const confirm = make("button", "gap-confirm");
  confirm.textContent = "Confirm";
  confirm.addEventListener("click", (event) => event.stopPropagation());
  const channel = make("select", "gap-channel");
  for (const value of ["", "mail", "phone"]) channel.append(new Option(value || "-", value));
  const summary = make("p", "gap-summary");
  summary.contentEditable = "true";
  const submit = make("button", "gap-submit");
  submit.textContent = "File";
  const registry = window.plingTestbed.registry;
  registry.target("gap_notes", notes);
  registry.target("gap_confirm", confirm);
  registry.target("gap_channel", channel);
  registry.target("gap_summary", summary);
  registry.tool({id: "file_report", desc: "File the report", kind: "write", handoff: {
    reason: "Only you can file it.",
    steps: [{target: "gap_notes", text: "Add to the notes."},
            {target: "gap_confirm", text: "Confirm."},
            {target: "gap_channel", text: "Choose a channel."},
            {target: "gap_summary", text: "Write a summary."},
            {target: "file_report", text: "File it."}],
    expect: {check: () => false},
  }}, submit);
}"""
FIVE_STEP_ACTION = "file_report"

_REGISTER_HANDOFF_ON_ELEMENT = """([tag, editable]) => {
  const area = document.querySelector("[data-testid='testbed-actions']");
  const holder = tag === "li" ? document.createElement("ul") : area;
  const element = document.createElement(tag);
  element.setAttribute("data-testid", "gap-element");
  element.textContent = editable ? "" : "Acknowledge";
  if (tag === "a") element.href = "#acknowledged";
  if (editable) element.contentEditable = "true";
  holder.append(element);
  if (holder !== area) area.append(holder);
  const button = document.createElement("button");
  button.textContent = "Acknowledge";
  area.append(button);
  const registry = window.plingTestbed.registry;
  registry.target("gap_element", element);
  registry.tool({id: "acknowledge", desc: "Acknowledge", kind: "write", handoff: {
    reason: "Only you can acknowledge it.",
    steps: [{target: "gap_element", text: "Look at it."},
            {target: "acknowledge", text: "Acknowledge."}],
    expect: {check: () => false},
  }}, button);
}"""
ELEMENT_ACTION = "acknowledge"

_REGISTER_HANDOFF_WITH_A_LATE_TARGET = """() => {
  const area = document.querySelector("[data-testid='testbed-actions']");
  const field = document.createElement("input");
  field.setAttribute("data-testid", "gap-early-field");
  const button = document.createElement("button");
  button.textContent = "Enrol";
  area.append(field, button);
  const registry = window.plingTestbed.registry;
  registry.target("gap_early", field);
  registry.tool({id: "enrol", desc: "Enrol", kind: "write", handoff: {
    reason: "Only you can enrol.",
    steps: [{target: "gap_early", text: "Type your name."},
            {target: "gap_later", text: "Pick a seat."},
            {target: "enrol", text: "Enrol."}],
    expect: {check: () => false},
  }}, button);
}"""
LATE_TARGET_ACTION = "enrol"

_REGISTER_ON_A_TAKEN_TARGET_ID = _script("""
  const first = button("First place");
  first.setAttribute("data-testid", "gap-first-place");
  registry.target("place", first);
  const taken = refusal(() => registry.target("place", button("Second place")));
  registry.tool({id: "countersign", desc: "Countersign", kind: "write", handoff: {
    reason: "Only you can countersign.", steps: [{target: "place", text: "Go there."}],
    expect: {check: () => false}}}, button("Countersign"));
  return taken;
""")

# The action id the registry's bookkeeping scripts below register.
TIDY = "tidy_up"
_UNREGISTER_AND_REGISTER_AGAIN = _script("""
  const control = button("Tidy up");
  const off = registry.tool(
    {id: "tidy_up", desc: "Tidy up", kind: "read", run: () => "tidied"}, control);
  const marked = control.getAttribute("data-pling-target");
  off();
  const unmarked = control.getAttribute("data-pling-target");
  const again = refusal(() => registry.tool(
    {id: "tidy_up", desc: "Tidy up again", kind: "read", run: () => "tidied"}, control));
  return {marked, unmarked, again, remarked: control.getAttribute("data-pling-target")};
""")
_REGISTER_TWICE = _script("""
  registry.tool({id: "tidy_up", desc: "First tidy", kind: "read", run: () => "one"}, button("One"));
  // Without a control, so only the action id can clash (a control is a target too).
  return refusal(() => registry.tool(
    {id: "tidy_up", desc: "Second tidy", kind: "read", run: () => "two"}));
""")
_BAD_BINDINGS = _script("""
  return [
    refusal(() => registry.tool(
      {id: "tidy_up", desc: "Tidy up", kind: "read", run: () => 1}, false)),
    refusal(() => registry.target("", button("Nameless"))),
    refusal(() => registry.target(7, button("Numbered"))),
  ];
""")
_BIND_AFTER_A_REFUSED_BINDING = _script("""
  const first = refusal(() => registry.target("gap_spot", {}));
  const spot = button("Spot");
  const second = refusal(() => registry.target("gap_spot", spot));
  return {first, second, mark: spot.getAttribute("data-pling-target")};
""")
_UNREGISTER_THE_ACTION_OF_A_SHARED_BUTTON = _script("""
  const control = button("Tidy up");
  const off = registry.tool(
    {id: "tidy_up", desc: "Tidy up", kind: "read", run: () => "tidied"}, control);
  registry.target("gap_tidy_step", control);
  off();
  return control.getAttribute("data-pling-target");
""")
_CHANGE_A_REGISTERED_DECLARATION = _script("""
  const params = {type: "object", properties: {note: {type: "string", maxLength: 3}},
                  additionalProperties: false};
  const decl = {id: "tidy_up", desc: "Tidy up", kind: "write", confirm: true, params,
                run: () => "tidied"};
  registry.tool(decl, button("Tidy up"));
  decl.kind = "read";
  decl.confirm = false;
  params.properties.note.maxLength = 100;
  const kept = registry.get("tidy_up").decl;
  const changes = [() => { kept.kind = "read"; }, () => { kept.confirm = false; },
                   () => { kept.params.properties.note.maxLength = 100; }];
  for (const change of changes) { try { change(); } catch { /* frozen: refused */ } }
""")
_REGISTER_WITHOUT_A_CONTROL = _script("""
  return refusal(() => registry.tool(
    {id: "tidy_up", desc: "Tidy up", kind: "read", run: () => "tidied"}));
""")
_REGISTER_TIDY_AS_WRITE = _script("""
  window.unregisterTidy = registry.tool(
    {id: "tidy_up", desc: "Tidy up", kind: "write", confirm: true, run: () => "tidied"},
    button("Tidy up"));
""")
_REGISTER_TIDY_AGAIN_AS_DANGER = _script("""
  window.unregisterTidy();
  registry.tool(
    {id: "tidy_up", desc: "Tidy up", kind: "danger", run: () => "tidied"}, button("Tidy up"));
""")
_ACTIVATE_TWICE_DEACTIVATE_ONE_TWICE = """name => {
  const registry = window.plingTestbed.registry;
  const mine = registry.activateScope(name);
  registry.activateScope(name);
  mine();
  mine();
}"""

# Not awaited: the turn it would start may wait on the user.
_SEND_FROM_THE_PAGE = "text => { window.plingTestbed.agent.send(text); }"
_SECOND_AGENT_SENDS = """async (text) => {
  const { mountAgent } = await import("/pling/index.js");
  const dock = document.createElement("pling-agent-dock");
  document.body.append(dock);
  dock.setAttribute("data-testid", "gap-second-dock");
  const { agent } = mountAgent({ dock, registry: window.plingTestbed.registry,
                                 locale: document.documentElement.lang });
  window.gapSecondAgent = agent;
  agent.send(text);
}"""


class TestbedScripts:
    """Page scripts on the testbed, each doing what a page's own code would (see the module
    docstring); `refusal`s are the runtime's errors as text, `None` where it accepted."""

    __test__ = False  # a page object, not a test class

    # The ids the scripts register, for a check to call and look for.
    RAW_SHAPE_ID_PREFIX = RAW_SHAPE_ID_PREFIX
    RETURNING_ACTION = RETURNING_ACTION
    RETURNING_DESC = RETURNING_DESC
    COUNTERSIGN_ACTION = COUNTERSIGN_ACTION
    FIVE_STEP_ACTION = FIVE_STEP_ACTION
    ELEMENT_ACTION = ELEMENT_ACTION
    LATE_TARGET_ACTION = LATE_TARGET_ACTION
    TIDY = TIDY

    def __init__(self, page: Page) -> None:
        self.page = page

    # ---- declarations the testbed's `declare()` cannot write ----------------------------

    def register_raw_shapes(self) -> dict[str, str | None]:
        """`tool()` with declarations of shapes it cannot run (not an object, `run` not a
        function, both or neither of `run` and `handoff`, a handoff missing a part); each
        shape's refusal by name. Their ids start with `RAW_SHAPE_ID_PREFIX`."""
        refusals: dict[str, str | None] = self.page.evaluate(_REGISTER_RAW_SHAPES)
        return refusals

    def register_returning(self, run_source: str) -> None:
        """Register `RETURNING_ACTION` (a read, on a fresh button) whose `run` is the JS
        function `run_source`."""
        self.page.evaluate(_REGISTER_RETURNING, run_source)

    # ---- handoffs of the page's own making ----------------------------------------------

    def register_counting_handoff(self) -> None:
        """Register `COUNTERSIGN_ACTION`: steps on a field and its button, and an
        `expect.check()` that counts its calls and never passes; adds a `gap-note` paragraph
        the check may change as a page would."""
        self.page.evaluate(_REGISTER_COUNTING_HANDOFF)

    def check_calls(self) -> int:
        """How often the counting handoff's `expect.check()` has run."""
        calls: int = self.page.evaluate("() => window.gapCheckCalls")
        return calls

    def change_note(self, change: str, arg: object = None) -> None:
        """Run the JS function `change` on the counting handoff's `gap-note` paragraph (with
        `arg` as its second argument)."""
        self.page.get_by_test_id("gap-note").evaluate(change, arg)

    def register_throwing_check_handoff(self) -> None:
        """Register `COUNTERSIGN_ACTION` with one step and an `expect.check()` that throws."""
        self.page.evaluate(_REGISTER_THROWING_CHECK)

    def register_five_step_handoff(self) -> None:
        """Register `FIVE_STEP_ACTION`: steps on a pre-filled textarea (`gap-notes`), a button
        whose click handler stops propagation (`gap-confirm`), a select (`gap-channel`), an
        editable paragraph (`gap-summary`) and its own button (`gap-submit`); never done."""
        self.page.evaluate(_REGISTER_FIVE_STEP_HANDOFF)

    def register_handoff_on_element(self, tag: str, editable: bool) -> None:
        """Register `ELEMENT_ACTION`: a first step on a new `tag` element (`gap-element`,
        editable when `editable`), a second on its button; never done."""
        self.page.evaluate(_REGISTER_HANDOFF_ON_ELEMENT, [tag, editable])

    def register_handoff_with_a_late_target(self) -> None:
        """Register `LATE_TARGET_ACTION`: a field (`gap-early-field`), then a step whose
        target the page has not rendered, then its button; never done."""
        self.page.evaluate(_REGISTER_HANDOFF_WITH_A_LATE_TARGET)

    def register_handoff_on_a_taken_target_id(self) -> str | None:
        """Bind target `place` to a button (`gap-first-place`), try to bind a second element
        to the same id, and register `COUNTERSIGN_ACTION` with its one step on `place`; the
        second binding's refusal."""
        refusal: str | None = self.page.evaluate(_REGISTER_ON_A_TAKEN_TARGET_ID)
        return refusal

    # ---- the registry's books -----------------------------------------------------------

    def unregister_and_register_again(self) -> dict[str, str | None]:
        """Register `TIDY` on a button, unregister it, register it again on the same button:
        the button's `data-pling-target` at each point (`marked`, `unmarked`, `remarked`)
        and the second registration's refusal (`again`)."""
        books: dict[str, str | None] = self.page.evaluate(_UNREGISTER_AND_REGISTER_AGAIN)
        return books

    def register_twice(self) -> str | None:
        """Register `TIDY` ("First tidy"), then another `TIDY` without a control; the second
        one's refusal."""
        refusal: str | None = self.page.evaluate(_REGISTER_TWICE)
        return refusal

    def bad_bindings(self) -> list[str | None]:
        """Refusals of a `TIDY` bound to `false`, a nameless target and a numbered one."""
        refusals: list[str | None] = self.page.evaluate(_BAD_BINDINGS)
        return refusals

    def bind_after_a_refused_binding(self) -> dict[str, str | None]:
        """Bind target `gap_spot` to a non-element (`first`: its refusal), then to a button
        (`second`: its refusal; `mark`: the button's `data-pling-target`)."""
        books: dict[str, str | None] = self.page.evaluate(_BIND_AFTER_A_REFUSED_BINDING)
        return books

    def unregister_the_action_of_a_shared_button(self) -> str | None:
        """One button both `TIDY`'s control and target `gap_tidy_step`; `TIDY` unregistered;
        the button's `data-pling-target` afterwards."""
        mark: str | None = self.page.evaluate(_UNREGISTER_THE_ACTION_OF_A_SHARED_BUTTON)
        return mark

    def change_a_registered_declaration(self) -> None:
        """Register `TIDY` (a write that asks, its note at most 3 characters), then change the
        page's declaration object and try to change the one `registry.get()` hands back."""
        self.page.evaluate(_CHANGE_A_REGISTERED_DECLARATION)

    def register_without_a_control(self) -> str | None:
        """Register `TIDY` (a read) without a control; its refusal."""
        refusal: str | None = self.page.evaluate(_REGISTER_WITHOUT_A_CONTROL)
        return refusal

    def register_tidy_as_write(self) -> None:
        """Register `TIDY` as a write that asks (an `ask` action), keeping its unregister."""
        self.page.evaluate(_REGISTER_TIDY_AS_WRITE)

    def register_tidy_again_as_danger(self) -> None:
        """Unregister the `TIDY` of `register_tidy_as_write` and register it as `danger`."""
        self.page.evaluate(_REGISTER_TIDY_AGAIN_AS_DANGER)

    def activate_scope_twice_and_end_one_activation_twice(self, name: str) -> None:
        """Activate scope `name` twice and call the first activation's end twice."""
        self.page.evaluate(_ACTIVATE_TWICE_DEACTIVATE_ONE_TWICE, name)

    # ---- the agent, driven by the page --------------------------------------------------

    def send_from_the_page(self, text: Any) -> None:
        """The page calls `agent.send(text)` (not awaited: the turn may wait on the user)."""
        self.page.evaluate(_SEND_FROM_THE_PAGE, text)

    def second_agent_sends(self, text: str) -> Locator:
        """Mount a second agent with a dock of its own (`gap-second-dock`, so the page's dock
        stays the only dock the driver finds) on the testbed's registry, and send it `text`;
        its dock."""
        self.page.evaluate(_SECOND_AGENT_SENDS, text)
        return self.page.get_by_test_id("gap-second-dock")
