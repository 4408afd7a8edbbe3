"""The plugsim engine: Heat-style stacks on a virtual clock, persisted in SQLite."""
