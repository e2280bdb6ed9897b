import Testing

/// Every test that talks to a sandbox over loopback. One serialized parent so the thread
/// and port checks of the lifecycle tests see only their own servers.
@Suite(.serialized) struct HTTPTests {}
