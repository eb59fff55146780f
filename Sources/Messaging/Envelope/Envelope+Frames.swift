import NIOCore

extension Envelope {
    /// A copy of the payload, framed, with the bytes at `range` replaced by `replacement`.
    /// This is how ids are re-labelled without touching anything else.
    public func frame(replacing range: Range<Int>, with replacement: ByteBuffer) -> ByteBuffer {
        var builder = FrameBuilder(capacity: payload.readableBytes + replacement.readableBytes)
        builder.append(slice(0..<range.lowerBound))
        builder.append(replacement)
        builder.append(slice(range.upperBound..<payload.readableBytes))
        return builder.finish()
    }

    /// The framed message with `id` as its id: the id replaced, or for a notification inserted
    /// (it becomes a request). This is how the Gateway forwards to a service; the result may be
    /// longer than the payload, so its sender checks it against the frame limit.
    public func frame(withID id: ByteBuffer) -> ByteBuffer {
        if let idRange { return frame(replacing: idRange, with: id) }
        return frame(insertingID: id)
    }

    /// ``frame(withID:)`` with `id` as its id and `client` (JSON text: a string, quotes included)
    /// as its `client`: each value replaced where the frame has it, else inserted after the
    /// opening brace. Both are written straight into the frame (the Gateway's every forward:
    /// as buffers of their own they cost two allocations a request).
    public func frame(withID id: Int64, client: String) -> ByteBuffer {
        var builder = FrameBuilder(capacity: payload.readableBytes + 20 + client.utf8.count + 16)
        let body = (payload.withUnsafeReadableBytes { bytes in bytes.firstIndex(of: UInt8(ascii: "{")) } ?? 0) + 1
        builder.append(slice(0..<body))
        if idRange == nil {
            builder.append("\"id\":")
            builder.appendInteger(id)
            builder.append(",")
        }
        if clientRange == nil {
            builder.append("\"client\":")
            builder.append(client)
            builder.append(",")
        }
        var cursor = body
        func copy(upTo range: Range<Int>) {
            builder.append(slice(cursor..<range.lowerBound))
            cursor = range.upperBound
        }
        // In the order they stand in the payload (every forward: no arrays to sort).
        if let idRange, let clientRange, clientRange.lowerBound < idRange.lowerBound {
            copy(upTo: clientRange)
            builder.append(client)
            copy(upTo: idRange)
            builder.appendInteger(id)
        } else {
            if let idRange {
                copy(upTo: idRange)
                builder.appendInteger(id)
            }
            if let clientRange {
                copy(upTo: clientRange)
                builder.append(client)
            }
        }
        builder.append(slice(cursor..<payload.readableBytes))
        return builder.finish()
    }

    /// A copy of a notification's payload, framed, with `"id":<id>,` inserted after its
    /// opening brace: the notification becomes a request with that id.
    public func frame(insertingID id: ByteBuffer) -> ByteBuffer {
        var builder = FrameBuilder(capacity: payload.readableBytes + id.readableBytes + 8)
        let body = payload.withUnsafeReadableBytes { bytes in bytes.firstIndex(of: UInt8(ascii: "{")) } ?? 0
        builder.append(slice(0..<(body + 1)))
        builder.append("\"id\":")
        builder.append(id)
        builder.append(",")
        builder.append(slice((body + 1)..<payload.readableBytes))
        return builder.finish()
    }

    /// For a `progress` notification: where `params.id` lies (the id of the request it belongs to).
    public var progressRequestIDRange: Range<Int>? {
        guard method == "progress" else { return nil }
        return paramsIDRange
    }

    /// For an `rpc.cancel` notification: the range of `params.id`, the request given up on.
    public var cancelledRequestIDRange: Range<Int>? {
        guard kind == .notification, method == Frames.cancelMethod else { return nil }
        return paramsIDRange
    }

    /// The range of `params.id`, when params is an object that has one.
    private var paramsIDRange: Range<Int>? {
        guard let params = paramsRange else { return nil }
        return payload.withUnsafeReadableBytes { bytes in
            guard let scanned = try? JSONScanner.scan(bytes, range: params) else { return nil }
            return scanned.members.first { Self.keyText($0, bytes) == "id" }?.value
        }
    }

    /// The bytes of `range`, as a slice of the payload.
    public func slice(_ range: Range<Int>) -> ByteBuffer {
        payload.getSlice(at: payload.readerIndex + range.lowerBound, length: range.count)!
    }
}
