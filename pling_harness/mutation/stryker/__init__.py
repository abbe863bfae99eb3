"""Machine-made mutants: StrykerJS over the runtime's safety core (`mutate --generated`)."""
