/// The Unicode scalars of UTF-8 bytes read in place (ill-formed sequences become U+FFFD), for the rules'
/// non-ASCII paths over sensitive memory: no `String` is made of the bytes.
struct UTF8Scalars: Sequence {
    let bytes: UnsafeBufferPointer<UInt8>

    struct Iterator: IteratorProtocol {
        var source: UnsafeBufferPointer<UInt8>.Iterator
        var decoder = Unicode.UTF8()

        mutating func next() -> Unicode.Scalar? {
            switch decoder.decode(&source) {
            case .scalarValue(let scalar): scalar
            case .emptyInput: nil
            case .error: "\u{FFFD}"
            }
        }
    }

    func makeIterator() -> Iterator { Iterator(source: bytes.makeIterator()) }
}
