"""Web pages: thin views that parse input, call one service or selector, and render."""
