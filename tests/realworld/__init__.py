"""Real-world-style kernels and programs (issue 11), each checked against numpy."""
