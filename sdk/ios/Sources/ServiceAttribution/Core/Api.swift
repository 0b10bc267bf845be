import Foundation

/// What a POST /v1/events or POST /v1/sessions answer asks of the SDK: both routes answer
/// alike, item by item.
struct BatchVerdict: Equatable {
    /// One item the service refused by name, for good.
    struct Refusal: Equatable {
        let index: Int
        let detail: String
    }

    /// Indexes to send again later (the install is not recorded yet).
    let retry: Set<Int>
    /// Items refused for good, by index.
    let refused: [Refusal]
    /// Whether a retryable refusal says the install is not recorded (`Conflict`): it is
    /// reported again before these items.
    let installMissing: Bool
    /// Items the service ignored (taken, never stored), by the drop each counts as.
    var ignored: [ServiceError.DropReason: Int] = [:]
    /// How many items the service says it stored (`accepted`).
    var accepted = 0
    /// Items the service named as repeats of an id stored from the same request
    /// (`duplicate_event`): delivered, the first copy stored.
    var repeated = 0
    /// Items ignored for a reason the SDK does not know, in the service's words: not sent
    /// again, so dropped (`refused`) and said.
    var unexplained: [String] = []
    /// Verdicts whose `index` names no item of the request (missing, not a whole number, out of
    /// range), in the service's words: each can only speak of an item no verdict named and the
    /// answer did not accept, so they count as drops up to those items and no further.
    var unplaced: [String] = []
    /// Verdicts naming an item a verdict named already: the first one counts.
    var namedAgain = 0
    /// What the service says of items it stored not quite as sent (a revenue in no currency it
    /// knows, say), in its words: logged, the items being delivered.
    var warnings: [String] = []

    /// The service's reasons for an ignored item that are drops on the device. (A manual
    /// INSTALL, also ignored, is never sent.)
    static let ignoredAs: [String: ServiceError.DropReason] = ["install_deleted": .deleted, "app_disabled": .disabled]
    /// The reason the service gives for a repeat of an event it stored from the same request
    /// (delivery.json's `ignoredReasons`): delivered, not a drop.
    static let repeatedReason = "duplicate_event"
}

/// A 2xx whose body is not what the route's contract says (not JSON, or JSON of another
/// shape): something between the app and the service answered, not the service. Handled like
/// a 5xx: retried with backoff.
struct UnexpectedAnswer: Error, LocalizedError {
    let route: String
    let statusCode: Int
    let body: String

    var errorDescription: String? {
        let start = String(body.prefix(80)).replacingOccurrences(of: "\n", with: " ")
        return "\(route) answered \(statusCode) with a body that is not the service's: \(start)"
    }
}

/// The service's SDK routes (spec/openapi.json), with the bare SDK key in `Authorization`.
/// A 401 or 403 is ``ServiceAttributionError/authentication(statusCode:)``; any other
/// non-success status ``ServiceAttributionError/http(statusCode:message:)``; no answer at all
/// ``ServiceAttributionError/network(_:)`` from the transport.
final class Api {
    private let base: String
    private let apiKey: String
    private let http: HTTPTransport
    private let clock: () -> Date
    /// Until when the service asked, by a `Retry-After`, not to be asked again; under `lock`,
    /// as the worker and the attribution poller both call.
    private var quietUntil = Date.distantPast
    private let lock = NSLock()

    init(baseURL: String, apiKey: String, http: HTTPTransport, clock: @escaping () -> Date = { Date() }) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.apiKey = apiKey
        self.http = http
        self.clock = clock
    }

    /// How much longer the service asked to be left alone: the `Retry-After` of its last answer
    /// that asked to be tried again later (408, 425, 429, 5xx); 0 once that time has passed.
    var askedToWait: TimeInterval {
        lock.lock()
        defer { lock.unlock() }
        return max(0, quietUntil.timeIntervalSince(clock()))
    }

    private func heed(_ response: HTTPResponse) {
        guard SdkCore.isRetryable(response.statusCode) else { return }
        let now = clock()
        guard let wait = RetryWait.retryAfter(response.retryAfter, now: now) else { return }
        lock.lock()
        quietUntil = max(quietUntil, now.addingTimeInterval(wait))
        lock.unlock()
    }

    func config() throws -> RemoteConfig {
        let body: String
        do {
            body = try call("GET", "/v1/config", nil).body
        } catch ServiceAttributionError.authentication(statusCode: 403) {
            // The service rejects a key with 401. A 403 here comes from something in the way (a
            // firewall's block of the phone's address): a failed read, which keeps the
            // configuration in force and the queue, not a verdict that switches the SDK off.
            throw ServiceAttributionError.http(statusCode: 403, message: "HTTP 403: GET /v1/config refused by something between the app and the service")
        }
        do {
            return try RemoteConfig.parse(body)
        } catch {
            throw ServiceAttributionError.network("the remote configuration could not be read")
        }
    }

    /// POST /v1/installs; its 2xx answer names the install (`{"service_id": …}`).
    func install(_ body: JSONValue) throws {
        let response = try call("POST", "/v1/installs", body.text)
        guard Api.object(response.body)?["service_id"]?.stringValue != nil else {
            throw UnexpectedAnswer(route: "POST /v1/installs", statusCode: response.statusCode, body: response.body)
        }
    }

    /// POST /v1/events with the device's clock as `sent_at`; its 2xx answer counts the accepted
    /// events and lists the refused ones by index.
    func events(_ events: [JSONValue], sentAt: Date) throws -> BatchVerdict {
        let sent = Requests.notAfter(events, "event_time", sentAt: sentAt)
        let envelope = JSONValue.object(["sent_at": .string(Requests.iso(sentAt)), "events": .array(sent)])
        let response = try call("POST", "/v1/events", envelope.text)
        return try Api.verdict(of: response, count: events.count, route: "POST /v1/events")
    }

    /// POST /v1/sessions with the device's clock as `sent_at`; its 2xx answer has the events'
    /// shape, session by session.
    func sessions(_ sessions: [JSONValue], sentAt: Date) throws -> BatchVerdict {
        let sent = Requests.notAfter(sessions, "started_at", sentAt: sentAt)
        let envelope = JSONValue.object(["sent_at": .string(Requests.iso(sentAt)), "sessions": .array(sent)])
        let response = try call("POST", "/v1/sessions", envelope.text)
        return try Api.verdict(of: response, count: sessions.count, route: "POST /v1/sessions")
    }

    /// A batch route's 2xx answer (`accepted`, `ignored`, `rejected`) for a request of `count`
    /// items; a body of another shape is not the service's.
    private static func verdict(of response: HTTPResponse, count: Int, route: String) throws -> BatchVerdict {
        guard let answer = Api.object(response.body), answer["accepted"]?.int64Value != nil,
              let rejected = (answer["rejected"] ?? .array([])).arrayValue else {
            throw UnexpectedAnswer(route: route, statusCode: response.statusCode, body: response.body)
        }
        var retry = Set<Int>()
        var refused: [BatchVerdict.Refusal] = []
        var installMissing = false
        var unexplained: [String] = []
        var unplaced: [String] = []
        var namedAgain = 0
        /// The items a refusal or an ignored entry named already: an item named twice, in one
        /// list or in both, is counted once, as the first verdict naming it says.
        var named = Set<Int>()
        /// Only a whole number naming an item of this request places a verdict on it.
        func itemIndex(_ verdict: [String: JSONValue]) -> Int? {
            guard let index = verdict["index"]?.int64Value, index >= 0, index < Int64(count) else { return nil }
            return Int(index)
        }
        for verdict in rejected.compactMap({ $0.objectValue }) {
            guard let index = itemIndex(verdict) else {
                let error = verdict["error"]?.stringValue ?? "rejected"
                let detail = verdict["detail"]?.stringValue ?? "no detail"
                unplaced.append("a refusal naming no item of the request (index \(verdict["index"]?.text ?? "none")): \(error): \(detail)")
                continue
            }
            if !named.insert(index).inserted {
                namedAgain += 1
                continue
            }
            if verdict["retryable"]?.boolValue == true {
                retry.insert(index)
                if verdict["error"]?.stringValue == "Conflict" { installMissing = true }
            } else {
                refused.append(BatchVerdict.Refusal(index: index, detail: verdict["detail"]?.stringValue ?? "refused"))
            }
        }
        var ignored: [ServiceError.DropReason: Int] = [:]
        var repeated = 0
        for verdict in (answer["ignored"]?.arrayValue ?? []).compactMap({ $0.objectValue }) {
            let reason = verdict["reason"]?.stringValue
            // One naming no item of the request never deletes the install nor counts an item
            // twice: it can only speak of an item no verdict named.
            guard let index = itemIndex(verdict) else {
                let detail = verdict["detail"]?.stringValue ?? "no detail"
                unplaced.append("an ignored entry naming no item of the request (index \(verdict["index"]?.text ?? "none")): \(reason ?? "no reason"): \(detail)")
                continue
            }
            if !named.insert(index).inserted {
                namedAgain += 1
                continue
            }
            // A repeat of an event the service stored from the same request: delivered, no drop,
            // counted as named so that it is not read as an item lost unsaid.
            if reason == BatchVerdict.repeatedReason {
                repeated += 1
                continue
            }
            if let drop = reason.flatMap({ BatchVerdict.ignoredAs[$0] }) {
                ignored[drop, default: 0] += 1
            } else {
                unexplained.append("ignored by the service (\(reason ?? "no reason")): \(verdict["detail"]?.stringValue ?? "no detail")")
            }
        }
        var found = BatchVerdict(retry: retry, refused: refused, installMissing: installMissing, ignored: ignored)
        // A count below 0 (out of contract) accepts none: it cannot make more drops than items.
        found.accepted = max(0, Int(clamping: answer["accepted"]?.int64Value ?? 0))
        found.repeated = repeated
        found.unexplained = unexplained
        found.unplaced = unplaced
        found.namedAgain = namedAgain
        found.warnings = (answer["warnings"]?.arrayValue ?? []).compactMap({ $0.objectValue }).map { warning in
            let id = warning["event_id"]?.stringValue.map { " (\($0))" } ?? ""
            return "#\(warning["index"]?.text ?? "?")\(id): \(warning["detail"]?.stringValue ?? "no detail")"
        }
        return found
    }

    /// POST /v1/installs/{service_id}/consent: the consent and the device's tracking
    /// (``Requests/tracking(_:)``) as they now stand, with the device's clock as `sent_at`.
    /// Answers 202 once the install is recorded, 409 before.
    func consent(serviceId: String, consent: JSONValue, device: JSONValue, sentAt: Date) throws {
        let body = JSONValue.object(["sent_at": .string(Requests.iso(sentAt)), "consent": consent, "device": device])
        let response = try call("POST", "/v1/installs/\(Api.encode(serviceId))/consent", body.text)
        guard Api.object(response.body) != nil else {
            throw UnexpectedAnswer(route: "POST /v1/installs/{service_id}/consent", statusCode: response.statusCode, body: response.body)
        }
    }

    func deleteInstall(serviceId: String) throws {
        _ = try call("DELETE", "/v1/installs/\(Api.encode(serviceId))", nil)
    }

    /// The flat map; empty while the install's attribution is not resolved. An answer that is
    /// not a JSON object (a proxy's or a captive portal's page) is an ``UnexpectedAnswer``,
    /// asked again after a delay like a 5xx, never read as a match still pending.
    func attribution(serviceId: String, waitSeconds: Int) throws -> [String: String] {
        let path = "/v1/installs/\(Api.encode(serviceId))/attribution?wait_seconds=\(waitSeconds)"
        let response = try call("GET", path, nil)
        guard let answer = Api.object(response.body) else {
            throw UnexpectedAnswer(route: "GET /v1/installs/{service_id}/attribution", statusCode: response.statusCode, body: response.body)
        }
        var params: [String: String] = [:]
        for (key, value) in answer {
            if let text = value.stringValue { params[key] = text }
        }
        return params
    }

    private func call(_ method: String, _ path: String, _ body: String?) throws -> HTTPResponse {
        var headers = ["Authorization": apiKey, "Accept": "application/json"]
        if body != nil { headers["Content-Type"] = "application/json" }
        let response = try http.send(HTTPRequest(method: method, url: base + path, headers: headers, body: body))
        if !(200...299).contains(response.statusCode) { heed(response) }
        switch response.statusCode {
        case 200...299:
            return response
        case 401, 403:
            throw ServiceAttributionError.authentication(statusCode: response.statusCode)
        default:
            guard Api.isVerdict(response) else {
                throw UnexpectedAnswer(route: "\(method) \(path)", statusCode: response.statusCode, body: response.body)
            }
            throw ServiceAttributionError.http(statusCode: response.statusCode, message: Api.detail(of: response))
        }
    }

    /// Whether a 4xx refuses what was sent for good, as the service says it: in its error shape
    /// (a JSON object with `error`). One from something in the way (a proxy's 400 or 407, a
    /// filter's 451, a captive portal's page) is no verdict on the request, and is sent again
    /// later as a 5xx is (delivery.json). A 413 splits a batch whatever its body: something in the
    /// way may take less than the service; 401, 403 and 404 are a configuration error either way.
    private static func isVerdict(_ response: HTTPResponse) -> Bool {
        let code = response.statusCode
        if SdkCore.isRetryable(code) || code == 413 || SdkCore.configurationStatuses.contains(code) { return true }
        return object(response.body)?["error"]?.stringValue != nil
    }

    private static func object(_ body: String) -> [String: JSONValue]? {
        return (try? JSONValue.parse(body))?.objectValue
    }

    private static func detail(of response: HTTPResponse) -> String {
        let detail = (try? JSONValue.parse(response.body))?.objectValue?["detail"]?.stringValue
        return "HTTP \(response.statusCode)" + (detail.map { ": \($0)" } ?? "")
    }

    private static let segment: CharacterSet = {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    private static func encode(_ segment: String) -> String {
        return segment.addingPercentEncoding(withAllowedCharacters: Api.segment) ?? segment
    }
}

/// HTTP over URLSession, waited for on the calling (SDK) queue.
final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let timeout: TimeInterval

    init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let url = URL(string: request.url) else {
            throw ServiceAttributionError.network("not a URL: \(request.url)")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if let body = request.body {
            urlRequest.httpBody = Data(body.utf8)
        }
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        let task = session.dataTask(with: urlRequest) { data, response, error in
            if let error = error {
                outcome.result = .failure(.network(error.localizedDescription))
            } else if let http = response as? HTTPURLResponse {
                let body = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
                outcome.result = .success(HTTPResponse(
                    statusCode: http.statusCode,
                    body: body,
                    retryAfter: http.value(forHTTPHeaderField: "Retry-After")
                ))
            }
            done.signal()
        }
        task.resume()
        // URLSession enforces the timeout; this bound only guards against a callback that
        // never comes.
        if done.wait(timeout: .now() + timeout * 2 + 5) == .timedOut {
            task.cancel()
            throw ServiceAttributionError.network("timed out")
        }
        return try outcome.result.get()
    }

    /// The answer, written by URLSession's callback before the semaphore is signalled and read
    /// after it: the semaphore orders the two.
    private final class Outcome: @unchecked Sendable {
        var result: Result<HTTPResponse, ServiceAttributionError> = .failure(.network("no answer"))
    }
}

/// How long the SDK waits before it tries again (sdk/conformance/delivery.json's `retryWait`):
/// a backoff jittered between half of it and the whole, and never less than the `Retry-After`
/// the service last answered with, up to an hour.
enum RetryWait {
    /// The longest a `Retry-After` is waited for: a device asked for more tries again after this.
    static let maxRetryAfter: TimeInterval = 3600

    /// The share of a backoff a jittered wait is at least.
    static let jitterLowestShare = 0.5

    /// A `Retry-After` as a wait from `now`: delay-seconds, or an HTTP date (RFC 9110); nil when
    /// absent or unreadable; never more than ``maxRetryAfter``.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let wait: TimeInterval
        if text.unicodeScalars.allSatisfy({ CharacterSet.decimalDigits.contains($0) && $0.isASCII }) {
            wait = text.count > 9 ? maxRetryAfter : TimeInterval(Int(text) ?? Int.max)
        } else if let date = httpDate.date(from: text) {
            wait = date.timeIntervalSince(now)
        } else {
            return nil
        }
        return min(max(0, wait), maxRetryAfter)
    }

    /// The wait before an attempt whose backoff is `backoff`: a random point between
    /// ``jitterLowestShare`` of it and the whole ("equal jitter"), so that the devices that failed
    /// together (the service down for a while) do not all come back at the same moment.
    static func jittered<R: RandomNumberGenerator>(_ backoff: TimeInterval, using random: inout R) -> TimeInterval {
        let least = backoff * jitterLowestShare
        guard backoff > least else { return backoff }
        return Double.random(in: least...backoff, using: &random)
    }

    static func jittered(_ backoff: TimeInterval) -> TimeInterval {
        var random = SystemRandomNumberGenerator()
        return jittered(backoff, using: &random)
    }

    /// IMF-fixdate, the HTTP date form (`Sun, 06 Nov 1994 08:49:37 GMT`).
    private static let httpDate: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }()
}
