/**
 * `npm run test:localstack` where LocalStack is not: its arguments, its one line and non-zero
 * exit, and what it deploys with; and how the suite reads a deployed stack. The deploy, run and
 * destroy steps need LocalStack (docs/testing.md).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  CAPABILITIES,
  type Capability,
  cliEnvOf,
  localstackUrl,
  missingOn,
  readStackOutputs,
} from "../support/target-env.ts";
import { DEPLOY_CONTEXT, localstackEnv, NEEDS, parseArgs, unreachable } from "./run.ts";

const SCRIPT = new URL("./run.ts", import.meta.url).pathname;
const TSX = new URL("../../node_modules/.bin/tsx", import.meta.url).pathname;

/** A local port nothing listens on: taken, then given back. */
const closedPort = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
};

describe("npm run test:localstack", () => {
  it("reads its arguments", () => {
    expect(parseArgs([])).toEqual({
      keep: false,
      skipDeploy: false,
      outputs: undefined,
      vitestArgs: [],
    });
    expect(parseArgs(["--keep", "--", "-t", "links"])).toEqual({
      keep: true,
      skipDeploy: false,
      outputs: undefined,
      vitestArgs: ["-t", "links"],
    });
    expect(parseArgs(["--skip-deploy", "--outputs", "out.json"])).toMatchObject({
      skipDeploy: true,
      outputs: "out.json",
    });
    expect(parseArgs(["--bogus"])).toEqual({ error: "unknown argument --bogus" });
    expect(parseArgs(["--skip-deploy"])).toEqual({
      error: "--skip-deploy needs --outputs <file>",
    });
    expect(parseArgs(["--outputs"])).toEqual({ error: "--outputs needs a file" });
    expect(parseArgs(["--outputs", "out.json"])).toEqual({
      error: "--outputs is for --skip-deploy",
    });
  });

  it("says why LocalStack cannot be used: no endpoint, not a URL, nothing listening", async () => {
    expect(await unreachable({})).toBe("LOCALSTACK_ENDPOINT is not set");
    expect(await unreachable({ LOCALSTACK_ENDPOINT: "localhost" })).toMatch(/is not a URL/);
    const port = await closedPort();
    expect(await unreachable({ LOCALSTACK_ENDPOINT: `http://127.0.0.1:${port}` })).toMatch(
      new RegExp(`127\\.0\\.0\\.1:${port}/_localstack/health did not answer`),
    );
  });

  it("exits non-zero with one line saying what it needs when LocalStack is not set", async () => {
    const env = { ...process.env };
    delete env.LOCALSTACK_ENDPOINT;
    const failed = await promisify(execFile)(TSX, [SCRIPT], { env }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stdout).toBe("");
    expect(failed?.stderr.trimEnd().split("\n")).toEqual([
      `${NEEDS}: LOCALSTACK_ENDPOINT is not set`,
    ]);
  });

  it("deploys without what LocalStack's free plan lacks, on LocalStack's endpoint", () => {
    expect(DEPLOY_CONTEXT).toEqual([
      "-c",
      "lakeQueries=false",
      "-c",
      "linkHost=false",
      "-c",
      "dashboard=false",
      "-c",
      "terminationProtection=false",
    ]);
    expect(localstackEnv({ LOCALSTACK_ENDPOINT: "http://localhost:4566/" })).toMatchObject({
      AWS_ENDPOINT_URL: "http://localhost:4566",
      AWS_ENDPOINT_URL_S3: "http://s3.localhost.localstack.cloud:4566",
      AWS_REGION: "us-east-1",
      CDK_DEFAULT_ACCOUNT: "000000000000",
    });
    expect(
      localstackEnv({ LOCALSTACK_ENDPOINT: "http://localstack:4566", AWS_REGION: "eu-west-1" }),
    ).toMatchObject({
      AWS_ENDPOINT_URL: "http://localstack:4566",
      AWS_ENDPOINT_URL_S3: "http://localstack:4566",
      CDK_DEFAULT_REGION: "eu-west-1",
    });
  });
});

describe("the suite's targets", () => {
  it("runs everything on the embedded runtime, and names why LocalStack and AWS skip what they do", () => {
    const all = Object.keys(CAPABILITIES) as Capability[];
    expect(missingOn("embedded", all)).toBeUndefined();
    // A deployed stack runs everything but postbacks to a mock network on this machine.
    expect(
      missingOn(
        "aws",
        all.filter((need) => need !== "loopbackPartner"),
      ),
    ).toBeUndefined();
    expect(missingOn("aws", ["loopbackPartner"])).toMatch(/mock network on this machine/);
    expect(missingOn("localstack", ["export"])).toMatch(/Athena.*Glue.*lakeQueries=false/);
    expect(missingOn("localstack", ["linkHost"])).toMatch(/HTTP API.*linkHost=false/);
    expect(missingOn("localstack", [])).toBeUndefined();
  });

  it("reads a stack's outputs as cdk deploy writes them, and hands the CLI its tables", async () => {
    const dir = await mkdtemp(join(tmpdir(), "outputs-"));
    try {
      const file = join(dir, "outputs.json");
      await writeFile(
        file,
        JSON.stringify({
          AttributionService: {
            ApiUrl: "https://abc123.execute-api.us-east-1.amazonaws.com/prod/",
            AppsTableName: "Apps",
            KeysTableName: "Keys",
            LinksTableName: "Links",
            SealingKeyArn: "arn:aws:kms:us-east-1:000000000000:key/k",
          },
        }),
      );
      const outputs = readStackOutputs(file);
      expect(outputs.LinkHostUrl).toBeUndefined();
      expect(cliEnvOf(outputs, "http://localhost:4566", {})).toEqual({
        ATTRIBUTION_AWS_APPS_TABLE: "Apps",
        ATTRIBUTION_AWS_KEYS_TABLE: "Keys",
        ATTRIBUTION_AWS_LINKS_TABLE: "Links",
        ATTRIBUTION_AWS_SEALING_KEY_ARN: "arn:aws:kms:us-east-1:000000000000:key/k",
        AWS_ENDPOINT_URL: "http://localhost:4566",
        AWS_ACCESS_KEY_ID: "test",
        AWS_SECRET_ACCESS_KEY: "test",
        AWS_REGION: "us-east-1",
      });
      await writeFile(file, JSON.stringify({ A: outputs, B: outputs }));
      expect(() => readStackOutputs(file)).toThrow(/2 stacks/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("maps an API URL LocalStack's CloudFormation gives to where LocalStack answers it", () => {
    expect(
      localstackUrl(
        "https://abc123.execute-api.us-east-1.amazonaws.com/prod/",
        "http://localhost:4566",
      ),
    ).toBe("http://localhost:4566/_aws/execute-api/abc123/prod/");
    expect(
      localstackUrl(
        "https://abc123.execute-api.localhost.localstack.cloud:4566/prod/",
        "http://localstack:4566/",
      ),
    ).toBe("http://localstack:4566/_aws/execute-api/abc123/prod/");
    expect(localstackUrl("http://other.example/x", "http://localhost:4566")).toBe(
      "http://other.example/x",
    );
  });
});
