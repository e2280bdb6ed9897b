import Foundation
import Synchronization
import Testing

@testable @_spi(SensitiveMemory) import CardValidation

/// Where the editors and `CardInput` keep the number and the code (issue 29, item 6), checked against the
/// kernel's own view of the process (`/proc/self/smaps`), not the flags the package records.
@Suite("Sensitive memory")
struct SensitiveMemoryTests {
    /// The `VmFlags` of the mapping holding `address`, from /proc/self/smaps (`dd`: left out of core dumps,
    /// `lo`: locked).
    static func kernelFlags(at address: UnsafeRawPointer) throws -> Set<Substring> {
        let target = UInt(bitPattern: address)
        // Read to the end (String(contentsOfFile:) stops after the first read of a /proc file).
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
                let start = UInt(line[..<dash], radix: 16),
                let end = UInt(line[line.index(after: dash)..<space], radix: 16)
            {
                inside = start <= target && target < end
            } else if inside, line.hasPrefix("VmFlags:") {
                return Set(line.dropFirst("VmFlags:".count).split(separator: " "))
            }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    static func address(of bytes: SensitiveBytes) throws -> UnsafeRawPointer {
        try #require(bytes.withUnsafeBytes { $0.baseAddress })
    }

    static func typed(_ text: String, into editor: inout some CardTextEditor) {
        for character in text { editor.insert(String(character)) }
    }

    @Test(arguments: [
        4, SensitiveMemory.slotSize, SensitiveMemory.slotSize + 1, SensitiveMemory.largeSlotSize,
        SensitiveMemory.largeSlotSize + 1, 3 * SensitiveMemory.pageSize,
    ])
    func aBufferOfAnySizeLivesInMemoryTheKernelLeavesOutOfDumps(_ size: Int) throws {
        let bytes = SensitiveBytes(copying: (0..<size).map { UInt8(truncatingIfNeeded: $0) })
        #expect(bytes.count == size)
        #expect(bytes.withUnsafeBytes { Array($0) } == (0..<size).map { UInt8(truncatingIfNeeded: $0) })
        let flags = try Self.kernelFlags(at: Self.address(of: bytes))
        #expect(flags.contains("dd"), "VmFlags \(flags.sorted())")
        #expect(bytes.isExcludedFromCoreDumps)
        // Locked when the limit allows (it does for root, or with RLIMIT_MEMLOCK above the few pages used).
        #expect(flags.contains("lo") == bytes.isLockedInMemory)
    }

    @Test func theEditorsAndTheCardKeepTheirDigitsInThatMemoryAndShareIt() throws {
        var number = CardNumberEditor()
        Self.typed("4242424242424242", into: &number)
        var code = CardSecurityCodeEditor(brand: number.brand)
        Self.typed("737", into: &code)
        let card = CardInput()
        card.setCardNumber(from: number)
        card.setSecurityCode(from: code)
        let snapshot = card.snapshot()
        #expect(snapshot.cardNumber == "4242424242424242" && snapshot.securityCode == "737")
        #expect(snapshot.cardNumberBytes === number.storage && snapshot.securityCodeBytes === code.storage)
        for bytes in [number.storage, code.storage] {
            #expect(try Self.kernelFlags(at: Self.address(of: bytes)).contains("dd"))
        }
        // A number set as a String is copied into protected memory too (the String stays the app's).
        card.cardNumber = "5555 5555 5555 4444"
        #expect(try Self.kernelFlags(at: Self.address(of: card.snapshot().cardNumberBytes)).contains("dd"))
        #expect(
            snapshot.validationIssue(for: .cardNumber) == nil && snapshot.validationIssue(for: .securityCode) == nil)
        #expect(card.snapshot().cardNumber == "5555 5555 5555 4444" && card.brand == .mastercard)
    }

    @Test func aSlotIsWipedWhenItsBufferIsReleased() {
        let slab = Mutex(SensitiveMemory.Slab())
        let block = SensitiveMemory.allocate(16, from: slab)
        #expect(block.kind == .slot)
        let secret = Array("4242424242424242".utf8)
        block.base.copyMemory(from: secret, byteCount: secret.count)
        SensitiveMemory.release(block, into: slab)
        // The slot stays mapped (chunks are kept): read what the next owner would get.
        let left = Array(UnsafeRawBufferPointer(start: block.base, count: SensitiveMemory.slotSize))
        #expect(left.allSatisfy { $0 == 0 })
        let again = SensitiveMemory.allocate(16, from: slab)
        #expect(again.base == block.base)
        SensitiveMemory.release(again, into: slab)
    }

    /// A card's encryption plaintext (over the small slot, under the large one) takes a slot, so a payment
    /// maps nothing; one just over the large slot gets its own mapping.
    @Test func aPlaintextSizedBufferTakesALargeSlotAndALargerOneItsOwnMapping() throws {
        let plaintext = SensitiveMemory.allocate(SensitiveMemory.slotSize + 50)
        #expect(plaintext.kind == .slot && plaintext.size == SensitiveMemory.largeSlotSize)
        #expect(try Self.kernelFlags(at: plaintext.base).contains("dd"))
        let small = SensitiveMemory.allocate(SensitiveMemory.slotSize)
        #expect(small.kind == .slot && small.size == SensitiveMemory.slotSize)
        let big = SensitiveMemory.allocate(SensitiveMemory.largeSlotSize + 1)
        #expect(big.kind == .mapping && big.size == SensitiveMemory.pageSize)
        // (Where each goes back is not asserted here: other suites share the process's slabs in parallel.)
        for block in [plaintext, small, big] { SensitiveMemory.release(block) }
    }

    @Test func aLargeSlotIsWipedWhenItsBufferIsReleased() {
        let slab = Mutex(SensitiveMemory.Slab(slotSize: SensitiveMemory.largeSlotSize))
        let block = SensitiveMemory.allocate(300, from: slab)
        #expect(block.kind == .slot && block.size == SensitiveMemory.largeSlotSize)
        block.base.initializeMemory(as: UInt8.self, repeating: 0x34, count: 300)
        SensitiveMemory.release(block, into: slab)
        let left = Array(UnsafeRawBufferPointer(start: block.base, count: SensitiveMemory.largeSlotSize))
        #expect(left.allSatisfy { $0 == 0 })
    }

    @Test func aRefusedLockStillGivesDumpExcludedMemory() throws {
        let size = SensitiveMemory.pageSize
        let refused: SensitiveMemory.Lock = { _, _ in -1 }
        let mapped = SensitiveMemory.map(size, lock: refused)
        let block = try #require(mapped)
        #expect(!block.locked && block.excludedFromDumps)
        let flags = try Self.kernelFlags(at: block.base)
        #expect(flags.contains("dd") && !flags.contains("lo"))
        block.base.storeBytes(of: 0x42, as: UInt8.self)
        #expect(block.base.load(as: UInt8.self) == 0x42)
        SensitiveMemory.release(block)
    }
}
