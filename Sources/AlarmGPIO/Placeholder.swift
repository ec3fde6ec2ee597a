// Placeholder until the target's first source lands.
