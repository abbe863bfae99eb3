"""`pling-tutorial releases`: a framework page checked on the framework's real releases.

A range of one package's releases from the registry (`registry`), each release installed
once per machine and served from the page's row on a copy of its folder (`serving`,
`seats`), checked one check a seat (`check --page`'s run) and judged from the check runs'
reports (`verdict`), every release of the range
(`--each`) or a bisection per guarantee (`search`); or the tutorial's declared bug list
replayed on each bug's last buggy and first fixed release (`declared`). The command:
`command`.
"""
