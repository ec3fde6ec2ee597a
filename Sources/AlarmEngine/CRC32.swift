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

    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        // Contiguous storage (arrays, slices, Data) is read through a buffer pointer: several
        // times faster than iterating, which matters for a store file of a megabyte.
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            table.withUnsafeBufferPointer { checksum(buffer, table: $0) }
        }
        if let contiguous { return contiguous }
        return table.withUnsafeBufferPointer { checksum(Array(bytes), table: $0) }
    }

    private static func checksum<Bytes: Collection<UInt8>>(_ bytes: Bytes, table: UnsafeBufferPointer<UInt32>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
