import LinuxSupport

/// Our own pthreads for blocking socket work (``DetachedThread``), reporting a failure to start
/// one as a ``ControlSocketError``.
package enum ControlThread {
    package static func start(_ body: @escaping @Sendable () -> Void) throws(ControlSocketError) {
        let created = DetachedThread.start(body)
        if created != 0 { throw ControlSocketError("pthread_create", path: "", errno: created) }
    }
}
