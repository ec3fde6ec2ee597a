import AlarmDaemon
import AlarmTestKit
import Glibc
import JournalLogging
import Logging
import Testing

@Suite struct JournalLogHandlerTests {
    /// A pipe the handler writes into; the test reads what arrived.
    final class Capture {
        let output: JournalOutput
        private let readEnd: Int32
        private let writeEnd: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0, fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0 else { throw ReceiverError(message: "pipe: errno \(errno)") }
            (readEnd, writeEnd) = (ends[0], ends[1])
            output = JournalOutput(descriptor: writeEnd)
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        func logger(level: Logger.Level = .trace, provider: Logger.MetadataProvider? = nil) -> Logger {
            Logger(label: "alarmd.test") { label in
                var handler = JournalLogHandler(label: label, output: self.output, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }
        }

        /// What was written so far.
        func text() -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                bytes += buffer[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    @Test func eachLevelHasItsSyslogPrefix() throws {
        let capture = try Capture()
        let logger = capture.logger()
        logger.critical("c")
        logger.error("e")
        logger.warning("w")
        logger.notice("n")
        logger.info("i")
        logger.debug("d")
        logger.trace("t")
        #expect(capture.text() == "<2>c\n<3>e\n<4>w\n<5>n\n<6>i\n<7>d\n<7>t\n")
    }

    @Test func metadataFollowsSortedAsKeyValue() throws {
        let capture = try Capture()
        var logger = capture.logger()
        logger[metadataKey: "zone"] = "Europe/Berlin"
        logger.info("Alarm alerting", metadata: ["alarm.id": "42", "alarm.title": "Wake up", "count": .stringConvertible(3), "empty": "", "list": ["a", "b"]])
        #expect(capture.text() == "<6>Alarm alerting alarm.id=42 alarm.title=\"Wake up\" count=3 empty=\"\" list=\"[\\\"a\\\", \\\"b\\\"]\" zone=Europe/Berlin\n")
    }

    @Test func explicitMetadataWinsOverProvidedAndHandlerMetadata() throws {
        let capture = try Capture()
        var logger = capture.logger(provider: Logger.MetadataProvider { ["request": "7", "shared": "provider"] })
        logger[metadataKey: "shared"] = "handler"
        logger.info("one")
        logger.info("two", metadata: ["shared": "call"])
        #expect(capture.text() == "<6>one request=7 shared=provider\n<6>two request=7 shared=call\n")
    }

    @Test func oneEntryStaysOneLine() throws {
        let capture = try Capture()
        let logger = capture.logger()
        logger.error("first\nsecond\r\tthird \u{1B}[31m \\n", metadata: ["path": "a\nb", "quote": "say \"hi\""])
        #expect(capture.text() == "<3>first\\nsecond\\r\\tthird \\x1b[31m \\\\n path=a\\nb quote=\"say \\\"hi\\\"\"\n")
    }

    @Test func levelsBelowTheHandlersAreDropped() throws {
        let capture = try Capture()
        let logger = capture.logger(level: .notice)
        logger.info("quiet")
        logger.notice("loud")
        #expect(capture.text() == "<5>loud\n")
    }

    /// Lines longer than a pipe's atomic 4 KiB, from many threads at once, into a file.
    @Test func linesFromManyThreadsNeverInterleave() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/log"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let output = JournalOutput(descriptor: descriptor)
        let logger = Logger(label: "t") { JournalLogHandler(label: $0, output: output) }
        let pad = String(repeating: "x", count: 6000)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for entry in 0..<25 { logger.info("entry", metadata: ["n": "\(task)-\(entry)", "pad": "\(pad)"]) }
                }
            }
        }
        let lines = String(decoding: TestFiles.read(path) ?? [], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 201 && lines.last == "")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("<6>entry n=") && $0.hasSuffix(" pad=" + pad) })
        #expect(Set(lines.dropLast()).count == 200)
    }
}
