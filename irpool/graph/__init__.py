"""Stage 2: the graph model built from a parsed document, and the weights file."""
