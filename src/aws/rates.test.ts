import { GetObjectCommand, S3ServiceException } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, describe, expect, it } from "vitest";
import { sampleEnv } from "../functions/sample-env.ts";
import { s3 as client } from "./clients.ts";
import { s3Rates } from "./rates.ts";

// The functions' own client, mocked alone: other files in this worker keep theirs.
const s3 = mockClient(client);

afterAll(() => s3.restore());

const env = {
  ...sampleEnv({ rates: "read" }),
  FX_RATES_BUCKET: "lake",
  FX_RATES_KEY: "reference/ecb-eurofxref-hist.csv",
};

describe("the rates on AWS", () => {
  it("start with the table the function ships when S3 fails at the start, rather than failing it", async () => {
    s3.on(GetObjectCommand).rejects(
      new S3ServiceException({
        name: "InternalError",
        $fault: "server",
        $metadata: { httpStatusCode: 500 },
        message: "We encountered an internal error. Please try again.",
      }),
    );
    const { fx } = await s3Rates(env, { rates: "read" });
    expect(fx?.lastDate).toBe("2025-05-09");
    expect(fx?.toUsd(100, "EUR", "2025-05-09")).toBe(112.52);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(1);
  });
});
