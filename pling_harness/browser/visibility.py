"""`visible(element)` for the harness's in-page scripts, as Playwright means it: the element
has a box and is not `visibility: hidden`. One definition for the ready wait, the dock's
settle wait and `user_click`, so they agree with each other and with Playwright's `expect`."""

VISIBLE_FUNCTION = """
  const visible = (element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility === "visible";
  };
"""
