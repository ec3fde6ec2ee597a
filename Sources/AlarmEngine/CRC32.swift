/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as used by zlib and PNG.
///
/// The store uses it to tell a damaged file from a good one; it is no defence against tampering.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        // Read through buffer pointers: several times faster than iterating the slice, which
        // matters for a store file of a megabyte.
        bytes.withUnsafeBufferPointer { bytes in
            table.withUnsafeBufferPointer { table in
                var crc: UInt32 = 0xFFFF_FFFF
                for byte in bytes {
                    crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                }
                return crc ^ 0xFFFF_FFFF
            }
        }
    }
}
