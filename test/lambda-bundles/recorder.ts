/**
 * A recording proxy in front of a local server of AWS's JSON APIs (DynamoDB, SQS, Firehose,
 * KMS): each request passed on as it came, and noted with the access key that signed it, so
 * that a test can hold what each function did to the IAM policy its role has on AWS (each
 * function signs with a key of its own).
 */
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request: the key that signed it, the service and operation, and its body. */
export interface RecordedRequest {
  readonly accessKey: string;
  /** `DynamoDB_20120810`, `AmazonSQS`, …: the `X-Amz-Target` header's service. */
  readonly service: string;
  /** `GetItem`: the `X-Amz-Target` header's operation. */
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

export interface Recorder {
  readonly endpoint: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host"]);

const accessKeyOf = (request: IncomingMessage): string =>
  /Credential=([^/]+)\//.exec(String(request.headers.authorization ?? ""))?.[1] ?? "";

export const startRecorder = async (target: string): Promise<Recorder> => {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (request, response) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const [service = "", operation = ""] = String(request.headers["x-amz-target"] ?? "").split(
        ".",
      );
      requests.push({
        accessKey: accessKeyOf(request),
        service,
        operation,
        body: body.length > 0 ? (JSON.parse(body.toString("utf8")) as Record<string, unknown>) : {},
      });
      const headers = Object.fromEntries(
        Object.entries(request.headers)
          .filter(([name]) => !HOP_BY_HOP.has(name))
          .map(([name, value]) => [name, String(value)]),
      );
      const answer = await fetch(`${target}${request.url ?? "/"}`, {
        method: request.method ?? "POST",
        headers,
        ...(body.length > 0 && { body }),
      });
      const passed = Buffer.from(await answer.arrayBuffer());
      response.writeHead(
        answer.status,
        Object.fromEntries(
          [...answer.headers].filter(
            ([name]) => !HOP_BY_HOP.has(name) && name !== "content-length",
          ),
        ),
      );
      response.end(passed);
    } catch (error) {
      response.writeHead(502).end(String(error));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
};
