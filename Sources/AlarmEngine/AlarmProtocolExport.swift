// The records, client ids and history entries the engine keeps are the wire protocol's values
// too: they live in AlarmProtocol so that a client decodes them without linking the engine, and
// every user of the engine sees them through it.
@_exported import AlarmProtocol
