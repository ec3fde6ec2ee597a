// Simulator sources follow.
