"""engine layer: the compiled rules and their Python façade."""
