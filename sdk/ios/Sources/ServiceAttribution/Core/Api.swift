import Foundation

/// What a POST /v1/events answer asks of the SDK.
struct EventsVerdict: Equatable {
    /// Indexes to send again later (the install is not recorded yet).
    let retry: Set<Int>
    /// Why events were refused for good, for the log.
    let refused: [String]
}

/// The service's SDK routes (spec/openapi.json), with the bare SDK key in `Authorization`.
/// A 401 or 403 is ``ServiceAttributionError/authentication(statusCode:)``; any other
/// non-success status ``ServiceAttributionError/http(statusCode:message:)``; no answer at all
/// ``ServiceAttributionError/network(_:)`` from the transport.
final class Api {
    private let base: String
    private let apiKey: String
    private let http: HTTPTransport

    init(baseURL: String, apiKey: String, http: HTTPTransport) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.apiKey = apiKey
        self.http = http
    }

    func config() throws -> RemoteConfig {
        let body = try call("GET", "/v1/config", nil).body
        do {
            return try RemoteConfig.parse(body)
        } catch {
            throw ServiceAttributionError.network("the remote configuration could not be read")
        }
    }

    func install(_ body: JSONValue) throws {
        _ = try call("POST", "/v1/installs", body.text)
    }

    func events(_ events: [JSONValue]) throws -> EventsVerdict {
        let body = try call("POST", "/v1/events", JSONValue.object(["events": .array(events)]).text).body
        let answer = (try? JSONValue.parse(body))?.objectValue ?? [:]
        let rejected = (answer["rejected"]?.arrayValue ?? []).compactMap { $0.objectValue }
        var retry = Set<Int>()
        var refused: [String] = []
        for verdict in rejected {
            let index = verdict["index"]?.int64Value.map { Int($0) }
            if verdict["retryable"]?.boolValue == true {
                if let index = index { retry.insert(index) }
            } else {
                refused.append("#\(index.map { String($0) } ?? "?"): \(verdict["detail"]?.stringValue ?? "refused")")
            }
        }
        return EventsVerdict(retry: retry, refused: refused)
    }

    func deleteInstall(serviceId: String) throws {
        _ = try call("DELETE", "/v1/installs/\(Api.encode(serviceId))", nil)
    }

    /// The flat map; empty while the install's attribution is not resolved.
    func attribution(serviceId: String, waitSeconds: Int) throws -> [String: String] {
        let path = "/v1/installs/\(Api.encode(serviceId))/attribution?wait_seconds=\(waitSeconds)"
        let body = try call("GET", path, nil).body
        let answer = (try? JSONValue.parse(body))?.objectValue ?? [:]
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
        switch response.statusCode {
        case 200...299:
            return response
        case 401, 403:
            throw ServiceAttributionError.authentication(statusCode: response.statusCode)
        default:
            throw ServiceAttributionError.http(statusCode: response.statusCode, message: Api.detail(of: response))
        }
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
                outcome.result = .success(HTTPResponse(statusCode: http.statusCode, body: body))
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
