import Glibc

/// The system calls the state files are read and written with: ``SystemFileSystem`` on the
/// device; in tests, one that makes chosen calls on chosen files fail (`EIO` on a read, `ENOSPC`
/// on a write), which no real file system here can be asked to do.
///
/// Each call is the C function of the same name: it returns what that function returns and, on
/// failure, leaves the reason in `errno`.
package protocol FileSystemCalls: Sendable {
    func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    func close(_ descriptor: Int32) -> Int32
    func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int
    func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int
    func fstat(_ descriptor: Int32, _ status: inout stat) -> Int32
    func lstat(_ path: String, _ status: inout stat) -> Int32
    func fsync(_ descriptor: Int32) -> Int32
    func fdatasync(_ descriptor: Int32) -> Int32
    func ftruncate(_ descriptor: Int32, _ length: off_t) -> Int32
    func rename(_ source: String, _ destination: String) -> Int32
    func unlink(_ path: String) -> Int32
    func mkdir(_ path: String, _ mode: mode_t) -> Int32
    func access(_ path: String, _ mode: Int32) -> Int32
}

/// The kernel's file system, through libc.
package struct SystemFileSystem: FileSystemCalls {
    package init() {}

    package func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Glibc.open(path, flags, mode) }
    package func close(_ descriptor: Int32) -> Int32 { Glibc.close(descriptor) }

    package func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        Glibc.read(descriptor, buffer.baseAddress, buffer.count)
    }

    package func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        Glibc.write(descriptor, buffer.baseAddress, buffer.count)
    }

    package func fstat(_ descriptor: Int32, _ status: inout stat) -> Int32 { Glibc.fstat(descriptor, &status) }
    package func lstat(_ path: String, _ status: inout stat) -> Int32 { Glibc.lstat(path, &status) }
    package func fsync(_ descriptor: Int32) -> Int32 { Glibc.fsync(descriptor) }
    package func fdatasync(_ descriptor: Int32) -> Int32 { Glibc.fdatasync(descriptor) }
    package func ftruncate(_ descriptor: Int32, _ length: off_t) -> Int32 { Glibc.ftruncate(descriptor, length) }
    package func rename(_ source: String, _ destination: String) -> Int32 { Glibc.rename(source, destination) }
    package func unlink(_ path: String) -> Int32 { Glibc.unlink(path) }
    package func mkdir(_ path: String, _ mode: mode_t) -> Int32 { Glibc.mkdir(path, mode) }
    package func access(_ path: String, _ mode: Int32) -> Int32 { Glibc.access(path, mode) }
}
