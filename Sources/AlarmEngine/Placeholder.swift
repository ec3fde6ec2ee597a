// Engine sources follow.
