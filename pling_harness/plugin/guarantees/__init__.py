"""The harness's guarantees, one `declare(Guarantee(...))` each, grouped in modules by
family. Every module here is imported to find them (`pling_harness.plugin.guarantee_registry`):
adding a guarantee is adding a module (or a declaration to one), and nothing else."""
