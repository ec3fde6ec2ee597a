import ServiceLifecycle

/// A service that runs `body` until it returns or graceful shutdown cancels it.
public struct TaskService: Service {
    let body: @Sendable () async -> Void

    public init(_ body: @escaping @Sendable () async -> Void) {
        self.body = body
    }

    public func run() async {
        await cancelWhenGracefulShutdown {
            await body()
        }
    }
}

/// A service's wait for nothing: it returns only when the group cancels it (a service that
/// returns would stop the whole group).
public enum UntilCancelled {
    public static func wait() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        for await _ in stream {}
        withExtendedLifetime(continuation) {}
    }
}
