import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one buffer type the SDK keeps a card number or security code in: an immutable run of bytes in
/// memory that is excluded from core dumps (`madvise(MADV_DONTDUMP)`), locked against swap where the
/// kernel allows (`mlock`; when `RLIMIT_MEMLOCK` or the kernel refuses, the bytes stay unlocked and
/// everything else holds), and wiped with `explicit_bzero` when the last reference goes.
///
/// Small buffers share page-aligned chunks mapped once per process (slabs of fixed slots): up to
/// ``SensitiveMemory/slotSize`` bytes (an editor's digits, a card field) and up to
/// ``SensitiveMemory/largeSlotSize`` bytes (the JWE plaintext of a card), so a payment makes no system
/// call for its secrets. Larger ones get a mapping of their own, unmapped on release. When even `mmap` fails, the bytes live in an ordinary heap
/// block (still wiped on release; ``isExcludedFromCoreDumps`` then says `false`).
///
/// The bytes are written once, by the initializer's closure, and never change: a value can be shared by
/// editors, `CardInput` and its snapshots without copying, and read from any thread.
///
/// Not part of the SDK's API (`@_spi(SensitiveMemory)`): PaymentFlow reads a snapshot's number and code
/// through it and builds the encryption plaintext in one. Apps use ``CardInput`` and the editors.
@_spi(SensitiveMemory)
public final class SensitiveBytes: @unchecked Sendable, Equatable {
    // @unchecked: the storage is written only inside `init` and only read afterwards.
    private let block: SensitiveMemory.Block?
    /// The bytes held.
    public let count: Int

    /// No bytes (no memory is mapped for it).
    public static let empty = SensitiveBytes()

    private init() {
        block = nil
        count = 0
    }

    /// Room for `capacity` bytes, filled by `initialize` (which writes the bytes and answers how many it
    /// wrote, at most `capacity`). The memory is excluded from dumps and locked before `initialize` runs,
    /// so the secret never lands in dumpable or swappable memory. When `initialize` throws, the memory is
    /// wiped and released and the error is rethrown.
    public init<E: Error>(
        capacity: Int, initializingWith initialize: (UnsafeMutableRawBufferPointer) throws(E) -> Int
    ) throws(E) {
        precondition(capacity >= 0, "negative capacity")
        let block = capacity > 0 ? SensitiveMemory.allocate(capacity) : nil
        let written: Int
        do {
            written = try initialize(UnsafeMutableRawBufferPointer(start: block?.base, count: capacity))
        } catch {
            if let block { SensitiveMemory.release(block) }
            throw error
        }
        precondition(written >= 0 && written <= capacity, "wrote outside the sensitive buffer")
        self.block = block
        self.count = written
    }

    /// A copy of `bytes` (an empty collection gives an empty buffer).
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(capacity: bytes.count) { buffer in
            let copied = bytes.withContiguousStorageIfAvailable { source in
                if let base = source.baseAddress { buffer.baseAddress!.copyMemory(from: base, byteCount: source.count) }
                return source.count
            }
            if let copied { return copied }
            var index = 0
            for byte in bytes {
                buffer[index] = byte
                index += 1
            }
            return index
        }
    }

    deinit {
        if let block { SensitiveMemory.release(block) }
    }

    /// Runs `body` on the bytes in place. Do not let the pointer escape, and do not copy the bytes into
    /// `String`s or arrays you do not wipe.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: block?.base, count: count))
    }

    /// Whether the bytes sit in memory marked `MADV_DONTDUMP` (true on Linux unless every mapping failed).
    public var isExcludedFromCoreDumps: Bool { block?.excludedFromDumps ?? true }

    /// Whether the bytes are locked against swap (false when `RLIMIT_MEMLOCK` or the kernel refused).
    public var isLockedInMemory: Bool { block?.locked ?? true }

    /// The same bytes (not constant-time: an editor's equality, not a secret comparison).
    public static func == (lhs: SensitiveBytes, rhs: SensitiveBytes) -> Bool {
        if lhs === rhs { return true }
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in a.elementsEqual(b) } }
    }

    /// The bytes as UTF-8 code units (for the rules and the masked forms; no copy).
    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeBytes { body($0.assumingMemoryBound(to: UInt8.self)) }
    }

    /// The bytes as a `String` (invalid UTF-8 repaired): a copy in ordinary memory, which the caller owns
    /// and the SDK cannot wipe. The SDK itself calls this only for a public getter an app asked.
    var string: String {
        withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}

/// How sensitive memory is obtained and given back (see ``SensitiveBytes``). The process's dump settings
/// (`/proc/self/coredump_filter`, `prctl(PR_SET_DUMPABLE)`, `RLIMIT_CORE`) are the app's: nothing here
/// changes them.
enum SensitiveMemory {
    /// The largest buffer that takes a slot of the small slab (a card number as typed, with separators).
    static let slotSize = 64
    /// The largest buffer that takes a slot of the large slab: a card's encryption plaintext (about 110
    /// bytes with a short name; a 45-character name and its escapes stay well under this).
    static let largeSlotSize = 512

    /// One allocation: where, how big (a slot, a mapping or a heap block), and what protection it got.
    struct Block: @unchecked Sendable {
        // @unchecked: an address handed from the allocator to one owner.
        let base: UnsafeMutableRawPointer
        let size: Int
        let kind: Kind
        let excludedFromDumps: Bool
        let locked: Bool
    }

    enum Kind {
        case slot
        case mapping
        case heap
    }

    static let pageSize: Int = {
        let size = sysconf(Int32(_SC_PAGESIZE))
        return size > 0 ? size : 4096
    }()

    static func allocate(_ capacity: Int) -> Block {
        capacity <= slotSize ? allocate(capacity, from: slab) : allocate(capacity, from: largeSlab)
    }

    static func release(_ block: Block) {
        if block.size <= slotSize { release(block, into: slab) } else { release(block, into: largeSlab) }
    }

    /// ``allocate(_:)`` with the slab to take a block that fits its slots from (a test's own).
    static func allocate(_ capacity: Int, from slab: borrowing Mutex<Slab>) -> Block {
        if let slot = slab.withLock({ capacity <= $0.slotSize ? $0.take() : nil }) { return slot }
        let size = (capacity + pageSize - 1) / pageSize * pageSize
        if let mapping = map(size, lock: systemLock) { return mapping }
        // No mapping to be had: ordinary memory, still wiped on release.
        let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        return Block(base: base, size: capacity, kind: .heap, excludedFromDumps: false, locked: false)
    }

    /// ``release(_:)`` with the slab a slot goes back to.
    static func release(_ block: Block, into slab: borrowing Mutex<Slab>) {
        wipe(block.base, block.size)
        switch block.kind {
        case .slot:
            slab.withLock { $0.give(block) }
        case .mapping:
            if block.locked { _ = munlock(block.base, block.size) }
            _ = munmap(block.base, block.size)
        case .heap:
            block.base.deallocate()
        }
    }

    /// Zeroes `count` bytes at `base` in a way the optimizer may not remove.
    static func wipe(_ base: UnsafeMutableRawPointer, _ count: Int) {
        #if canImport(Darwin)
        _ = memset_s(base, count, 0, count)
        #else
        explicit_bzero(base, count)
        #endif
    }

    /// `mlock`, or a test's stand-in (0 on success, as the system call).
    typealias Lock = @Sendable (UnsafeMutableRawPointer, Int) -> Int32

    static let systemLock: Lock = { mlock($0, $1) }

    /// A private anonymous mapping of `size` bytes (a multiple of the page size), excluded from dumps and
    /// locked when `lock` succeeds; `nil` when the mapping itself fails.
    static func map(_ size: Int, lock: Lock) -> Block? {
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        #if os(Linux)
        let excluded = madvise(address, size, MADV_DONTDUMP) == 0
        #else
        let excluded = false
        #endif
        let locked = lock(address, size) == 0
        return Block(base: address, size: size, kind: .mapping, excludedFromDumps: excluded, locked: locked)
    }

    /// A slab's chunks: 4 pages each, cut into slots of one size, mapped on demand and kept for the
    /// process's life (a slot is wiped when it comes back).
    struct Slab: ~Copyable {
        static let chunkPages = 4
        /// The size of every slot (a divisor of the page size).
        let slotSize: Int
        var free: [Slot] = []

        init(slotSize: Int = SensitiveMemory.slotSize) {
            precondition(slotSize > 0 && SensitiveMemory.pageSize % slotSize == 0, "a slot must divide a page")
            self.slotSize = slotSize
        }

        struct Slot {
            let address: UInt
            let excludedFromDumps: Bool
            let locked: Bool
        }

        mutating func take() -> Block? {
            if free.isEmpty {
                let size = SensitiveMemory.pageSize * Self.chunkPages
                guard let chunk = SensitiveMemory.map(size, lock: SensitiveMemory.systemLock) else { return nil }
                let start = UInt(bitPattern: chunk.base)
                // Highest first, so slots are handed out in address order.
                for offset in stride(from: size - slotSize, through: 0, by: -slotSize) {
                    free.append(
                        Slot(
                            address: start + UInt(offset), excludedFromDumps: chunk.excludedFromDumps,
                            locked: chunk.locked))
                }
            }
            let slot = free.removeLast()
            return Block(
                base: UnsafeMutableRawPointer(bitPattern: slot.address)!, size: slotSize, kind: .slot,
                excludedFromDumps: slot.excludedFromDumps, locked: slot.locked)
        }

        mutating func give(_ block: Block) {
            free.append(
                Slot(
                    address: UInt(bitPattern: block.base), excludedFromDumps: block.excludedFromDumps,
                    locked: block.locked))
        }
    }

    static let slab = Mutex(Slab())
    static let largeSlab = Mutex(Slab(slotSize: largeSlotSize))
}
