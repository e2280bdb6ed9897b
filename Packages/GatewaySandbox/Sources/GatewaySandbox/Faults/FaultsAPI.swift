import EGWWire

extension SandboxFault {
    /// Reads the JSON form the `/sandbox/faults` endpoint takes (README.md, "Fault API"); `object` is the
    /// strictly parsed object (a value of another type lacks `endpoint` and is refused).
    init(json object: JSONValue) throws(FaultJSONError) {
        let known: Set<String> = [
            "endpoint", "kind", "milliseconds", "status", "errorCode", "message", "next", "probability", "seed",
            "processesRequest",
        ]
        if let unknown = object.memberNames.first(where: { !known.contains($0) }) {
            throw FaultJSONError("unknown member \"\(unknown)\"")
        }
        guard let endpointName = object[member: "endpoint"]?.stringValue else {
            throw FaultJSONError(
                "\"endpoint\" is required: one of \(SandboxEndpoint.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let endpoint = SandboxEndpoint(name: endpointName) else {
            throw FaultJSONError(
                "unknown endpoint; use one of \(SandboxEndpoint.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let kindName = object[member: "kind"]?.stringValue else {
            throw FaultJSONError(
                "\"kind\" is required: latency, status, status-no-body, malformed, truncated, drop or rotate-key")
        }
        func status() throws(FaultJSONError) -> Int {
            guard let status = object[member: "status"]?.intValue, (100...599).contains(status) else {
                throw FaultJSONError("\"status\" must be an integer from 100 to 599")
            }
            return status
        }
        func optionalString(_ key: String) throws(FaultJSONError) -> String? {
            guard let value = object[member: key] else { return nil }
            guard let text = value.stringValue else { throw FaultJSONError("\"\(key)\" must be a string") }
            return text
        }
        let kind: Kind
        switch kindName {
        case "latency":
            guard let ms = object[member: "milliseconds"]?.intValue, (0...600_000).contains(ms) else {
                throw FaultJSONError("\"milliseconds\" must be an integer from 0 to 600000")
            }
            kind = .latency(.milliseconds(ms))
        case "status":
            kind = .status(
                try status(), errorCode: try optionalString("errorCode"), message: try optionalString("message"))
        case "status-no-body": kind = .statusWithoutBody(try status())
        case "malformed": kind = .malformedBody
        case "truncated": kind = .truncatedBody
        case "drop": kind = .dropConnection
        case "rotate-key": kind = .rotateKey
        default:
            throw FaultJSONError(
                "unknown kind; use latency, status, status-no-body, malformed, truncated, drop or rotate-key")
        }
        let schedule: Schedule
        switch (object[member: "next"], object[member: "probability"]) {
        case (nil, nil):
            schedule = .next(1)
        case (let next?, nil):
            guard let count = next.intValue, count >= 1 else {
                throw FaultJSONError("\"next\" must be an integer >= 1")
            }
            schedule = .next(count)
        case (nil, let probability?):
            guard let p = probability.doubleValue, (0...1).contains(p) else {
                throw FaultJSONError("\"probability\" must be a number from 0 to 1")
            }
            var seed: UInt64?
            if let value = object[member: "seed"] {
                guard case .number(let literal) = value, let parsed = UInt64(literal) else {
                    throw FaultJSONError("\"seed\" must be a non-negative integer")
                }
                seed = parsed
            }
            schedule = .probability(p, seed: seed)
        case (.some, .some):
            throw FaultJSONError("give either \"next\" or \"probability\", not both")
        }
        if object[member: "seed"] != nil, case .next = schedule.storage {
            throw FaultJSONError("\"seed\" goes with \"probability\"")
        }
        var processes: Bool?
        if let value = object[member: "processesRequest"] {
            guard let flag = value.boolValue else { throw FaultJSONError("\"processesRequest\" must be a boolean") }
            processes = flag
        }
        self.init(endpoint: endpoint, kind: kind, schedule: schedule, processesRequest: processes)
    }

    /// The JSON form, as `GET /sandbox/faults` lists it.
    var json: JSONObjectBuilder {
        var object = JSONObjectBuilder(["endpoint": .string(endpoint.rawValue), "kind": .string(kind.name)])
        switch kind.storage {
        case .latency(let delay): object["milliseconds"] = .number(String(Kind.milliseconds(delay)))
        case .status(let status, let code, let message):
            object["status"] = .int(status)
            object["errorCode"] = code.map { .string($0) }
            object["message"] = message.map { .string($0) }
        case .statusWithoutBody(let status): object["status"] = .int(status)
        case .malformedBody, .truncatedBody, .dropConnection, .rotateKey: break
        }
        switch schedule.storage {
        case .next(let count): object["next"] = .int(count)
        case .probability(let p, let seed):
            object["probability"] = .number(String(p))
            object["seed"] = seed.map { .number(String($0)) }
        }
        object["processesRequest"] = .bool(processesRequest)
        return object
    }
}

/// Why a fault's JSON was refused.
struct FaultJSONError: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension SandboxCore {
    func inject(_ fault: SandboxFault) -> Int { state.withLock { $0.faults.add(fault) } }

    /// `GET /sandbox/faults`: the active faults with their ids and what is left of `next(N)`.
    func faultsList() -> HTTPResponse {
        let active = state.withLock { $0.faults.active }
        let list: [JSONValue] = active.map { entry in
            var object = entry.fault.json
            object["id"] = .int(entry.id)
            object["remaining"] = entry.remaining.map { .int($0) }
            return object.value
        }
        return .json(200, JSONObjectBuilder(["seed": .number(String(settings.seed)), "faults": .array(list)]).value)
    }

    /// `POST /sandbox/faults` with one fault object (or `{"faults": [...]}`).
    func faultsAdd(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONValue
        switch jsonObjectBody(request) {
        case .success(let object): body = object
        case .failure(let error): return error.response
        }
        var objects: [JSONValue] = [body]
        if body.memberNames == ["faults"] {
            guard case .array(let elements)? = body[member: "faults"] else {
                return .error(400, "INVALID_REQUEST", "\"faults\" must be an array of fault objects")
            }
            objects = []
            for element in elements {
                guard case .object = element else {
                    return .error(400, "INVALID_REQUEST", "\"faults\" must be an array of fault objects")
                }
                objects.append(element)
            }
        }
        var faults: [SandboxFault] = []
        for object in objects {
            do {
                faults.append(try SandboxFault(json: object))
            } catch {
                return .error(400, "INVALID_REQUEST", "fault: \(error.reason)")
            }
        }
        let added: [JSONValue] = faults.map { fault in
            var object = fault.json
            object["id"] = .int(inject(fault))
            return object.value
        }
        return .json(201, JSONObjectBuilder(["faults": .array(added)]).value)
    }

    /// `DELETE /sandbox/faults`: removes every fault.
    func faultsClear() -> HTTPResponse {
        state.withLock { $0.faults.clear() }
        return .json(200, JSONObjectBuilder(["faults": .array([])]).value)
    }

    /// `GET /sandbox/log`: the request log (never a body).
    func logRead() -> HTTPResponse {
        let entries = state.withLock { $0.log.entries }
        return .json(200, JSONObjectBuilder(["requests": .array(entries.map(\.json))]).value)
    }

    /// `DELETE /sandbox/log`.
    func logClear() -> HTTPResponse {
        state.withLock { $0.log.clear() }
        return .json(200, JSONObjectBuilder(["requests": .array([])]).value)
    }

    /// `POST /sandbox/rotate-key`: rotates now; answers the new `kid`.
    func rotateKeyEndpoint() -> HTTPResponse {
        let kid = keys.rotate()
        return .json(200, JSONObjectBuilder(["kid": .string(kid)]).value)
    }
}
