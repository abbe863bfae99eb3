"""Pling harness: proves an in-page agent's confirmation and handoff guarantees end to end."""
