/**
 * The admin commands against a deployed stack's tables (ATTRIBUTION_AWS_* from the stack
 * outputs), here with a DynamoDB-compatible endpoint standing in for AWS through the SDK's
 * standard AWS_ENDPOINT_URL_DYNAMODB: the same client code, the same tables' key schemas.
 */
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARSHALL_OPTIONS } from "../../src/adapters/dynamodb/marshall-options.ts";
import { createDynamoStores } from "../../src/adapters/dynamodb/stores.ts";
import { ensureTables } from "../../src/adapters/dynamodb/table-definitions.ts";
import { LOCAL_TABLE_NAMES } from "../../src/embedded/local-dynamodb.ts";
import { cliWithEnv } from "../support/service.ts";

describe("admin commands on the AWS target", () => {
  let dir: string;
  let dynamo: { endpoint: string; doc: DynamoDBDocumentClient; close(): Promise<void> };
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "attribution-aws-"));
    // dynalite in memory as AWS's DynamoDB, which asks the CLI for no more than its credentials
    // (the embedded runtime's own store asks for the token of its start).
    const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new DynamoDBClient({
      endpoint,
      region: "eu-west-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    });
    await ensureTables(client, LOCAL_TABLE_NAMES);
    dynamo = {
      endpoint,
      doc: DynamoDBDocumentClient.from(client, { marshallOptions: MARSHALL_OPTIONS }),
      close: async () => {
        client.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
    env = {
      ATTRIBUTION_AWS_APPS_TABLE: LOCAL_TABLE_NAMES.apps,
      ATTRIBUTION_AWS_KEYS_TABLE: LOCAL_TABLE_NAMES.keys,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
    };
  });

  afterAll(async () => {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("creates the app and its keys in the stack's tables, not in a data folder", async () => {
    const dataDir = join(dir, "unused-data");
    const created = JSON.parse(
      await cliWithEnv(
        env,
        dataDir,
        "apps",
        "create",
        "--app-id",
        "com.example.cloud",
        "--name",
        "Cloud",
        "--platform",
        "ios",
        "--json",
      ),
    ) as { keys: { keyId: string }[] };
    const stores = createDynamoStores(dynamo.doc, LOCAL_TABLE_NAMES);
    expect(await stores.apps.get("com.example.cloud")).toMatchObject({
      name: "Cloud",
      platform: "ios",
    });
    const keys = await stores.keys.listByApp("com.example.cloud");
    expect(keys.map((k) => k.keyId).sort()).toEqual(created.keys.map((k) => k.keyId).sort());
  });

  it("refuses to turn sealing on without the stack's sealing key", async () => {
    await expect(
      cliWithEnv(
        env,
        join(dir, "unused-data"),
        "apps",
        "config",
        "--app-id",
        "com.example.cloud",
        "--encryption",
        "on",
      ),
    ).rejects.toThrow(/ATTRIBUTION_AWS_SEALING_KEY_ARN/);
  });

  it("makes and lists links in the stack's links table, naming the stack's link host", async () => {
    const dataDir = join(dir, "unused-data");
    await expect(
      cliWithEnv(
        env,
        dataDir,
        "links",
        "create",
        "--app-id",
        "com.example.cloud",
        "--media-source",
        "x",
      ),
    ).rejects.toThrow(/ATTRIBUTION_AWS_LINKS_TABLE/);
    const linkEnv = {
      ...env,
      ATTRIBUTION_AWS_LINKS_TABLE: LOCAL_TABLE_NAMES.links,
      ATTRIBUTION_AWS_LINK_HOST_URL: "https://abc123.execute-api.eu-west-1.amazonaws.com",
    };
    const created = JSON.parse(
      await cliWithEnv(
        linkEnv,
        dataDir,
        "links",
        "create",
        "--app-id",
        "com.example.cloud",
        "--media-source",
        "tiktok",
        "--json",
      ),
    ) as { deeplink_id: string; url: string };
    expect(created.url).toBe(
      `https://abc123.execute-api.eu-west-1.amazonaws.com/${created.deeplink_id}`,
    );
    const stores = createDynamoStores(dynamo.doc, LOCAL_TABLE_NAMES);
    expect(await stores.links.get(created.deeplink_id)).toMatchObject({ mediaSource: "tiktok" });
    const listed = await cliWithEnv(
      linkEnv,
      dataDir,
      "links",
      "list",
      "--app-id",
      "com.example.cloud",
    );
    expect(listed).toContain(created.deeplink_id);
    // Without Athena named, the counts are not guessed.
    expect(listed).toMatch(new RegExp(`${created.deeplink_id}\\s+-\\s+active`));
    expect(listed).toContain("ATTRIBUTION_AWS_ATHENA_WORKGROUP");
  });

  it("takes an app's own link host only when the stack serves it, as the API does", async () => {
    const dataDir = join(dir, "unused-data");
    const linkEnv = {
      ...env,
      ATTRIBUTION_AWS_LINKS_TABLE: LOCAL_TABLE_NAMES.links,
      ATTRIBUTION_AWS_LINK_HOST_URL: "https://go.example.com",
    };
    const configure = (extra: Record<string, string>) =>
      cliWithEnv(
        { ...linkEnv, ...extra },
        dataDir,
        "apps",
        "config",
        "--app-id",
        "com.example.cloud",
        "--link-hosts",
        "go.cloud.example",
      );
    // Unset: named, rather than read as "none served".
    await expect(configure({})).rejects.toThrow(/Set ATTRIBUTION_AWS_LINK_APP_HOSTS/);
    // Taps on a host the link host does not answer would all fail.
    await expect(configure({ ATTRIBUTION_AWS_LINK_APP_HOSTS: "none" })).rejects.toThrow(
      /Link host go\.cloud\.example is not served by this deployment yet/,
    );
    await expect(configure({ ATTRIBUTION_AWS_LINK_APP_HOSTS: "go.brand.example" })).rejects.toThrow(
      /not served by this deployment/,
    );
    await configure({ ATTRIBUTION_AWS_LINK_APP_HOSTS: "go.brand.example, Go.Cloud.example" });
    const stores = createDynamoStores(dynamo.doc, LOCAL_TABLE_NAMES);
    expect((await stores.apps.get("com.example.cloud"))?.links?.hosts).toEqual([
      "go.cloud.example",
    ]);
    // A host the app names already stays its own, whatever the list says now.
    await configure({ ATTRIBUTION_AWS_LINK_APP_HOSTS: "none" });
  });
});
