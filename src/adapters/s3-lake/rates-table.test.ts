import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { GetObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { s3RatesTable } from "./rates-table.ts";
import { createVersionedS3 } from "./versioned-s3.test-support.ts";

const BUCKET = "lake";
const KEY = "reference/ecb-eurofxref-hist.csv";

describe("the rate table in S3", () => {
  it("is none until written, then the text written last", async () => {
    const s3 = createVersionedS3({ versioned: [BUCKET] });
    const table = s3RatesTable(s3.client, BUCKET, KEY);
    expect(await table.read()).toBeUndefined();
    await table.write("Date,USD\n2026-11-20,1.05\n");
    await table.write("Date,USD\n2026-11-21,1.06\n");
    expect(await table.read()).toBe("Date,USD\n2026-11-21,1.06\n");
    expect(s3.bytes(BUCKET, KEY)?.toString()).toBe("Date,USD\n2026-11-21,1.06\n");
  });

  it("takes a 403 for a table not written yet, as S3 answers a reader that may not list it", async () => {
    const s3 = createVersionedS3({ versioned: [BUCKET] });
    s3.mock.on(GetObjectCommand).rejects(
      new S3ServiceException({
        name: "AccessDenied",
        $fault: "client",
        $metadata: { httpStatusCode: 403 },
        message: "Access Denied",
      }),
    );
    expect(await s3RatesTable(s3.client, BUCKET, KEY).read()).toBeUndefined();
  });

  it("passes on any other failure", async () => {
    const s3 = createVersionedS3({ versioned: [BUCKET] });
    s3.mock.on(GetObjectCommand).rejects(
      new S3ServiceException({
        name: "InternalError",
        $fault: "server",
        $metadata: { httpStatusCode: 500 },
        message: "We encountered an internal error",
      }),
    );
    await expect(s3RatesTable(s3.client, BUCKET, KEY).read()).rejects.toThrow(/internal error/);
  });

  it("gives up a read that stalls, in its body as before it", async () => {
    // An S3 that answers the headers, sends part of the table, and then nothing more.
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/csv", "content-length": "1000" });
      response.write("Date,USD\n");
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const s3 = new S3Client({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      forcePathStyle: true,
      region: "eu-west-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
    });
    try {
      await expect(s3RatesTable(s3, BUCKET, KEY, { readTimeoutMs: 200 }).read()).rejects.toThrow(
        /abort/i,
      );
    } finally {
      s3.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
