"""The handoff timer's text, read as the page contract words it.

The handoff panel's timer text contains the time left in whole seconds as `m:ss` or `mm:ss`
(minutes may pass 59: `60:00`) or `h:mm:ss`. A check matches any of them, never one
runtime's own format:

    expect(dock.handoff_timer).to_have_text(time_left(297))   # "4:57", "04:57", "0:04:57"
"""

from __future__ import annotations

import re


def time_left(seconds: int) -> re.Pattern[str]:
    """Matches a text showing `seconds` left as `m:ss` / `mm:ss` (minutes may pass 59) or
    `h:mm:ss`, not as part of a longer number."""
    if seconds < 0:
        raise ValueError(f"time left must be 0 or more seconds, not {seconds}")
    minutes, secs = divmod(seconds, 60)
    hours, minutes_in_hour = divmod(minutes, 60)
    forms = [f"0*{minutes}:{secs:02d}", f"0*{hours}:{minutes_in_hour:02d}:{secs:02d}"]
    return re.compile(rf"(?<![\d:])(?:{'|'.join(forms)})(?![\d:])")
