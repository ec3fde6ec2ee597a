// Filled by the time zone work.
