"""Studies: commands that plan many runs, run them together and hand them to a report."""
