import AlarmClient
import AlarmKitCore
import AlarmProtocol
import CUnixSocket
import Glibc

/// Why a command failed: one line for stderr and the exit status (see ``AlarmCtl``).
struct CommandFailure: Error, Equatable {
    var message: String
    var exitStatus: Int32

    /// The daemon refused the operation (`notFound`, `invalidTransition`, `notAuthorized`, ...).
    static let refused: Int32 = 1
    /// `EX_USAGE`: a bad argument, named in the message.
    static let usage: Int32 = 64
    /// `EX_UNAVAILABLE`: the daemon is not running or the socket does not exist.
    static let unavailable: Int32 = 69
    /// `EX_NOPERM`: the socket refuses this user.
    static let noPermission: Int32 = 77

    static func refused(_ message: String) -> CommandFailure {
        CommandFailure(message: message, exitStatus: refused)
    }

    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message: message, exitStatus: usage)
    }

    /// The failure for an error of ``ControlClient`` talking to the socket at `path`. The client
    /// reports an unreachable daemon with the reason as text only, so the socket is tried once
    /// more here to learn the errno (69 or 77).
    static func from(_ error: any Error, socket path: String) -> CommandFailure {
        switch error {
        case let failure as CommandFailure:
            return failure
        case AlarmOperationError.serviceUnavailable(let reason):
            return unreachable(path, reason: reason)
        case let error as AlarmOperationError:
            return .refused(error.description)
        case let error as AlarmManager.AlarmError:
            return .refused(error.description)
        case let error as ControlError:
            return .refused(error.message)
        default:
            return .refused("\(error)")
        }
    }

    /// A daemon that cannot be reached at `path`: why, with the hint that fits.
    static func unreachable(_ path: String, reason: String) -> CommandFailure {
        let descriptor = alarmd_unix_connect(path)
        if descriptor >= 0 {
            // It answers now (started meanwhile, or the connection broke mid-request).
            close(descriptor)
            return CommandFailure(message: "alarmd at \(path) is unavailable: \(reason)", exitStatus: unavailable)
        }
        let number = -descriptor
        let cause = String(cString: strerror(number))
        switch number {
        case EACCES, EPERM:
            return CommandFailure(message: permissionDenied(path, group: socketGroup(path)), exitStatus: noPermission)
        case ENAMETOOLONG:
            return .usage("socket path \"\(path)\" is too long for a Unix socket")
        default:
            return CommandFailure(
                message: "cannot connect to alarmd at \(path): \(cause); is alarmd running? (systemctl status alarmd)",
                exitStatus: unavailable)
        }
    }

    /// Exit 77's line: the command that lets this user in, and the new login it needs.
    static func permissionDenied(_ path: String, group: String?) -> String {
        guard let group else {
            return "permission denied on \(path); add yourself to the socket's group (ls -l \(path) shows it): "
                + "sudo usermod -aG GROUP $USER, then log in again"
        }
        return "permission denied on \(path); add yourself to its group \(group): "
            + "sudo usermod -aG \(group) $USER, then log in again (or run newgrp \(group))"
    }

    /// The name of the group that owns the socket file; `nil` if it cannot be seen or has no name.
    static func socketGroup(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        var size = 1024
        while size <= 1 << 20 {
            var entry = group()
            var result: UnsafeMutablePointer<group>?
            var buffer = [CChar](repeating: 0, count: size)
            // The entry's strings point into the buffer: read them while it is alive.
            let (code, name) = buffer.withUnsafeMutableBufferPointer { storage -> (Int32, String?) in
                let code = getgrgid_r(status.st_gid, &entry, storage.baseAddress!, storage.count, &result)
                return (code, code == 0 && result != nil ? String(cString: entry.gr_name) : nil)
            }
            if code == ERANGE {
                size *= 4
                continue
            }
            return name
        }
        return nil
    }
}
