internal import EGWWire
import Foundation
internal import JWE

/// Minimal JSON writing for request bodies (strings escaped by EGWWire's one policy).
enum JSONText {
    indirect enum Value: Sendable {
        case string(String)
        case int(Int)
        case object([(String, Value)])
    }

    static func object(_ members: [(String, Value)]) -> [UInt8] {
        var out: [UInt8] = []
        write(.object(members), to: &out)
        return out
    }

    static func write(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .string(let text): JSONWriter.appendQuoted(text, to: &out)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendQuoted(member.0, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member.1, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
