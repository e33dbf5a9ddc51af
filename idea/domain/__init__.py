"""Pure model and rules of IdeA: stdlib only, no I/O, no clocks, no threads."""
