"""Mutation testing: prove every guarantee check fails when the runtime breaks it."""
