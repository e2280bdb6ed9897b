import EGWWire

/// The injected faults of one sandbox and the decision, per request, of which fire.
struct FaultSchedule: Sendable {
    struct Active: Sendable {
        let id: Int
        let fault: SandboxFault
        var remaining: Int?
        var random: SeededRandom
    }

    /// What the faults decided for one request.
    struct Decision: Sendable, Equatable {
        var latency: Duration = .zero
        var rotateKey = false
        /// The fault that replaces the response, if any (never latency or rotate-key).
        var action: SandboxFault?
        /// Names of every fault that fired, in order, for the request log.
        var applied: [String] = []
    }

    private(set) var active: [Active] = []
    private var ordinal: UInt64 = 0
    let seed: UInt64

    init(seed: UInt64) { self.seed = seed }

    @discardableResult
    mutating func add(_ fault: SandboxFault) -> Int {
        ordinal += 1
        let remaining: Int?
        let randomSeed: UInt64
        switch fault.schedule.storage {
        case .next(let count):
            remaining = count
            randomSeed = SeededRandom.derive(seed, ordinal)
        case .probability(_, let seed):
            remaining = nil
            randomSeed = seed ?? SeededRandom.derive(self.seed, ordinal)
        }
        active.append(
            Active(id: Int(ordinal), fault: fault, remaining: remaining, random: SeededRandom(seed: randomSeed)))
        return Int(ordinal)
    }

    mutating func clear() { active.removeAll() }

    /// Decides for one request to `endpoint`, consuming `next(N)` counts and probability draws.
    ///
    /// Latency and key-rotation faults are always consulted and combine; of the faults that
    /// replace the response, the first that fires wins and the later ones are not consulted.
    mutating func decide(for endpoint: SandboxEndpoint) -> Decision {
        var decision = Decision()
        var index = 0
        while index < active.count {
            let fault = active[index].fault
            let replacesResponse: Bool
            switch fault.kind.storage {
            case .latency, .rotateKey: replacesResponse = false
            case .status, .statusWithoutBody, .malformedBody, .truncatedBody, .dropConnection: replacesResponse = true
            }
            guard fault.endpoint == endpoint || fault.endpoint == .any, !(replacesResponse && decision.action != nil)
            else {
                index += 1
                continue
            }
            let fires: Bool
            switch fault.schedule.storage {
            case .next:
                fires = true
                active[index].remaining = (active[index].remaining ?? 1) - 1
            case .probability(let p, _):
                fires = active[index].random.nextUnit() < p
            }
            let exhausted = active[index].remaining.map { $0 <= 0 } ?? false
            if exhausted { active.remove(at: index) } else { index += 1 }
            guard fires else { continue }
            decision.applied.append(fault.kind.name)
            switch fault.kind.storage {
            case .latency(let delay): decision.latency += delay
            case .rotateKey: decision.rotateKey = true
            case .status, .statusWithoutBody, .malformedBody, .truncatedBody, .dropConnection: decision.action = fault
            }
        }
        return decision
    }
}

extension SandboxFault {
    /// The response this fault sends instead of (or made from) `handled`, the normal response
    /// when the request was processed.
    func apply(to handled: HTTPResponse?) -> HTTPResponse {
        let base =
            handled
            ?? .json(200, JSONObjectBuilder(["sandbox": .string("this response was replaced by a fault")]).value)
        switch kind.storage {
        case .status(let status, let errorCode, let message):
            return .error(
                status, errorCode ?? Self.defaultErrorCode(for: status),
                message ?? "injected by the sandbox: \(description)")
        case .statusWithoutBody(let status):
            return HTTPResponse(status: status, headers: [], body: [])
        case .malformedBody:
            var response = base
            response.body = Array("{\"sandboxFault\": \"malformed\" ".utf8) + base.body.prefix(base.body.count / 2)
            return response
        case .truncatedBody:
            var response = base
            response.delivery = .truncated(sentBytes: base.body.count / 2)
            return response
        case .dropConnection:
            var response = base
            response.delivery = .dropConnection
            return response
        case .latency, .rotateKey:
            return base
        }
    }

    /// The gateway code GATEWAY.md gives for a status, for forced statuses without one.
    static func defaultErrorCode(for status: Int) -> String {
        switch status {
        case 400: "INVALID_REQUEST"
        case 401: "INVALID_VERIFICATION_KEY"
        case 404: "PAYMENT_NOT_FOUND"
        case 409: "PAYMENT_ALREADY_PROCESSED"
        case 422: "DECRYPTION_FAILED"
        case 500...599: "INTERNAL_ERROR"
        default: "SANDBOX_FAULT"
        }
    }
}
