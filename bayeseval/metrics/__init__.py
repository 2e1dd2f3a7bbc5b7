"""The metric layer: one Bernstein engine, the Dirichlet family, named metrics."""
