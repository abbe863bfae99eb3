"""Checks generated from a tutorial's action table (`tutorials/<id>/actions.json`): every
action × locale × guarantee its declaration implies, collected by the plugin as
`actions.json::test_declared[<action>-<check>-<locale>]` and run through the dock driver, so
a page on any framework gets them (docs/guarantees.md, "Generated checks")."""
